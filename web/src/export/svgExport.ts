// The frame on screen as a standalone SVG (and PNG) for slides: the machine drawing of each
// lane with its styles written into the elements (the page's CSS and theme variables do not
// travel with a file), the dense canvases under it as images, and a caption with the scenario,
// the step and the link that reopens the frame.

/** Style properties an exported element keeps (what the drawing's CSS sets). */
const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'visibility',
  'paint-order',
] as const;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** One drawing to export: the machine SVG of a lane and its heading. */
export interface ExportPart {
  svg: SVGSVGElement;
  label: string;
}

/** What goes under the drawing. */
export interface ExportCaption {
  lines: string[];
  link: string;
}

/** Colours of the page the drawing sits on (read from the theme when exporting). */
export interface ExportColours {
  background: string;
  text: string;
  link: string;
}

/** Characters per caption line (the caption is 14 px type under a drawing at least 600 units wide). */
const CAPTION_CHARS = 110;

/** Splits a caption line (a link has no spaces) into lines of at most `CAPTION_CHARS`. */
export function captionLines(text: string, width = CAPTION_CHARS): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    const at = cut > width / 2 ? cut : width;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  out.push(rest);
  return out;
}

/** Copies the computed style of every element of `from` onto the matching element of `to` (same tree). */
function inlineStyles(from: Element, to: Element): void {
  const sources = [from, ...Array.from(from.querySelectorAll('*'))];
  const targets = [to, ...Array.from(to.querySelectorAll('*'))];
  sources.forEach((source, i) => {
    const target = targets[i];
    if (!target) return;
    const computed = getComputedStyle(source);
    if (computed.display === 'none') {
      target.remove();
      return;
    }
    const style = STYLE_PROPS.map((p) => [p, computed.getPropertyValue(p)] as const)
      .filter(([p, v]) => v !== '' && v !== 'normal' && v !== 'auto' && !(p === 'visibility' && v === 'visible'))
      .map(([p, v]) => `${p}:${v}`)
      .join(';');
    target.removeAttribute('class');
    // Through the CSSOM, not setAttribute('style'): the lab's Content-Security-Policy refuses inline
    // style attributes (style-src 'self'), and the clone belongs to the lab's document until imported.
    if (style && 'style' in target) (target as SVGElement).style.cssText = style;
  });
}

/** An SVG's viewBox as numbers, or null when it has none (read from the attribute: not every DOM has `viewBox.baseVal`). */
export function viewBoxOf(svg: Element): { x: number; y: number; width: number; height: number } | null {
  const parts = (svg.getAttribute('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) return null;
  const [x = 0, y = 0, width = 0, height = 0] = parts;
  return width > 0 && height > 0 ? { x, y, width, height } : null;
}

/** The dense canvases drawn under `svg` as <image> elements in the SVG's own units. */
function canvasImages(svg: SVGSVGElement): Element[] {
  const box = svg.getBoundingClientRect();
  const vb = viewBoxOf(svg);
  if (box.width === 0 || box.height === 0 || !vb) return [];
  const scale = vb.width / box.width;
  const host = svg.parentElement ?? svg;
  const out: Element[] = [];
  for (const canvas of Array.from(host.querySelectorAll('canvas'))) {
    const r = canvas.getBoundingClientRect();
    const overlaps = r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom;
    if (!overlaps || r.width === 0) continue;
    let href: string;
    try {
      href = canvas.toDataURL('image/png');
    } catch {
      continue;
    }
    const image = document.createElementNS(SVG_NS, 'image');
    image.setAttribute('href', href);
    image.setAttribute('x', String(vb.x + (r.left - box.left) * scale));
    image.setAttribute('y', String(vb.y + (r.top - box.top) * scale));
    image.setAttribute('width', String(r.width * scale));
    image.setAttribute('height', String(r.height * scale));
    image.setAttribute('preserveAspectRatio', 'none');
    out.push(image);
  }
  return out;
}

/**
 * Builds one standalone SVG document: the parts side by side (A, then B), a heading over each
 * when there are two, and the caption (its link a real link) underneath.
 */
export function buildFrameSvg(parts: ExportPart[], caption: ExportCaption, colours: ExportColours): string {
  const gap = 24;
  const headingH = parts.length > 1 ? 28 : 0;
  const lineH = 20;
  const placed: { part: ExportPart; x: number; w: number; h: number; vb: ReturnType<typeof viewBoxOf> }[] = [];
  let x = 0;
  let height = 0;
  for (const part of parts) {
    const vb = viewBoxOf(part.svg);
    const w = vb ? vb.width : part.svg.getBoundingClientRect().width || 600;
    const h = vb ? vb.height : part.svg.getBoundingClientRect().height || 400;
    placed.push({ part, x, w, h, vb });
    x += w + gap;
    height = Math.max(height, h);
  }
  const width = Math.max(640, x - gap);
  const textLines = [...caption.lines.flatMap((l) => captionLines(l)), ...captionLines(caption.link)];
  const linkLines = captionLines(caption.link).length;
  const captionTop = headingH + height + 16;
  const totalH = captionTop + textLines.length * lineH + 8;

  const doc = document.implementation.createDocument(SVG_NS, 'svg', null);
  const root = doc.documentElement;
  root.setAttribute('viewBox', `0 0 ${width} ${totalH}`);
  root.setAttribute('width', String(Math.round(width)));
  root.setAttribute('height', String(Math.round(totalH)));
  root.setAttribute('font-family', 'system-ui, sans-serif');
  const title = doc.createElementNS(SVG_NS, 'title');
  title.textContent = caption.lines[0] ?? 'mmviz';
  root.appendChild(title);
  const bg = doc.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', colours.background);
  root.appendChild(bg);

  for (const { part, x: px, w, h, vb } of placed) {
    if (headingH > 0) {
      const t = doc.createElementNS(SVG_NS, 'text');
      t.setAttribute('x', String(px));
      t.setAttribute('y', '18');
      t.setAttribute('font-size', '16');
      t.setAttribute('font-weight', '600');
      t.setAttribute('fill', colours.text);
      t.textContent = part.label;
      root.appendChild(t);
    }
    const clone = part.svg.cloneNode(true) as SVGSVGElement;
    inlineStyles(part.svg, clone);
    for (const a of ['role', 'aria-label', 'aria-roledescription', 'tabindex']) clone.removeAttribute(a);
    clone.querySelectorAll('[tabindex],[role],[aria-label]').forEach((el) => {
      el.removeAttribute('tabindex');
      el.removeAttribute('role');
    });
    for (const image of canvasImages(part.svg).reverse()) clone.insertBefore(image, clone.firstChild);
    clone.setAttribute('x', String(px));
    clone.setAttribute('y', String(headingH));
    clone.setAttribute('width', String(w));
    clone.setAttribute('height', String(h));
    if (vb) clone.setAttribute('viewBox', `${vb.x} ${vb.y} ${vb.width} ${vb.height}`);
    root.appendChild(doc.importNode(clone, true));
  }

  textLines.forEach((line, i) => {
    const isLink = i >= textLines.length - linkLines;
    const t = doc.createElementNS(SVG_NS, 'text');
    t.setAttribute('x', '0');
    t.setAttribute('y', String(captionTop + (i + 1) * lineH - 5));
    t.setAttribute('font-size', isLink ? '12' : '14');
    t.setAttribute('fill', isLink ? colours.link : colours.text);
    t.textContent = line;
    if (isLink) {
      const a = doc.createElementNS(SVG_NS, 'a');
      a.setAttribute('href', caption.link);
      a.appendChild(t);
      root.appendChild(a);
    } else {
      root.appendChild(t);
    }
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}\n`;
}

/** Draws an SVG document onto a canvas at `scale` and returns it as a PNG. */
export async function svgToPng(svgText: string, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error('the browser could not draw the SVG'));
      image.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(image.naturalWidth * scale));
    canvas.height = Math.max(1, Math.round(image.naturalHeight * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas in this browser');
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas gave no PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Offers `blob` as a download named `name`. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The machine drawings on screen, A's first, each with its lane's heading. */
export function machineParts(root: ParentNode = document): ExportPart[] {
  return Array.from(root.querySelectorAll<SVGSVGElement>('svg[aria-roledescription="machine drawing"]')).map((svg, i, all) => {
    const lane = svg.closest('[aria-label^="Run "]')?.getAttribute('aria-label') ?? (all.length > 1 ? `Run ${i === 0 ? 'A' : 'B'}` : 'Run');
    return { svg, label: lane };
  });
}
