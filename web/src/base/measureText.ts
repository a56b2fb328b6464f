// Text widths for SVG labels that must stay inside their box: measured with a canvas in the
// font the label is drawn in (the theme's --font-ui / --font-mono), so a projector's 24 px
// italic line is shortened where it really overflows. Where no canvas exists (tests in Node or
// jsdom) the caller falls back to an average-glyph estimate.

/** How a label is drawn. */
export interface TextStyle {
  mono?: boolean;
  italic?: boolean;
  bold?: boolean;
}

let context: OffscreenCanvasRenderingContext2D | null | undefined;
const families = new Map<string, string>();

function measuringContext(): OffscreenCanvasRenderingContext2D | null {
  if (context === undefined) {
    context = typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('2d');
  }
  return context;
}

/** The font family a theme token names (read once; the themes change colours, not fonts). */
function family(token: '--font-ui' | '--font-mono'): string {
  let value = families.get(token);
  if (value === undefined) {
    const declared = typeof document === 'undefined' ? '' : getComputedStyle(document.documentElement).getPropertyValue(token).trim();
    value = declared || (token === '--font-mono' ? 'monospace' : 'sans-serif');
    families.set(token, value);
  }
  return value;
}

/** The width of `text` drawn at `fontPx` in `style`, in px; null when nothing can measure it. */
export function textWidthPx(text: string, fontPx: number, style: TextStyle = {}): number | null {
  const ctx = measuringContext();
  if (!ctx) return null;
  ctx.font = `${style.italic ? 'italic ' : ''}${style.bold ? '700 ' : ''}${fontPx}px ${family(style.mono ? '--font-mono' : '--font-ui')}`;
  return ctx.measureText(text).width;
}
