// Colours of the dense views, read from the app's CSS variables (global.css) so that canvas and
// SVG look like one app; the fallbacks are the same values. Packed for direct pixel writes.

/** Parses "#rgb" or "#rrggbb" (what the app's tokens are) into [r, g, b]; null for anything else. */
export function parseHexColor(text: string): [number, number, number] | null {
  const t = text.trim();
  const m6 = /^#([0-9a-f]{6})$/i.exec(t);
  if (m6?.[1]) {
    const v = parseInt(m6[1], 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const m3 = /^#([0-9a-f]{3})$/i.exec(t);
  if (m3?.[1]) {
    const [r, g, b] = [...m3[1]].map((c) => parseInt(c + c, 16));
    return [r ?? 0, g ?? 0, b ?? 0];
  }
  return null;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([0x01020304]).buffer)[0] === 0x04;

/** An opaque colour as one 32-bit ImageData pixel (RGBA bytes in memory), as a signed int: pixels live in
 * Int32Arrays, whose values (unlike Uint32 ones >= 2^31) are always small integers to V8. */
export function packRgb(r: number, g: number, b: number): number {
  return LITTLE_ENDIAN ? (255 << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 255;
}

/** One colour: the CSS text (for strokes, text and the HTML legend) and the packed pixel. */
export interface Colour {
  css: string;
  px: number;
}

function colour(css: string): Colour {
  const rgb = parseHexColor(css) ?? [0, 0, 0];
  return { css, px: packRgb(rgb[0], rgb[1], rgb[2]) };
}

export interface DensePalette {
  background: Colour;
  /** Cell outline (the SVG frames' stroke). */
  border: Colour;
  /** Marks: dirty, locked, accessed, writable; outlines of touched and highlighted cells. */
  ink: Colour;
  inkSoft: Colour;
  /** By PTE kind code: none, present, PROT_NONE, migration. */
  pte: [Colour, Colour, Colour, Colour];
  /** By frame state code: free, mapped, isolated, migrating (MachineView's FRAME_COLORS). */
  frame: [Colour, Colour, Colour, Colour];
  /** The migrating frames' hatch and the isolated frames' dots. */
  hatch: Colour;
  dots: Colour;
  /** TLB slots: empty, read-only entry, writable entry. */
  tlbEmpty: Colour;
  tlbEntry: Colour;
  tlbWrite: Colour;
  /** The row of this step's CPU (MachineView's eventCpu) and of other CPUs the step touched (touchedCpu). */
  eventRow: Colour;
  eventBar: Colour;
  touchedBar: Colour;
  fontUi: string;
}

/** Variable name and fallback of every token used. */
const TOKENS = {
  panelBg: ['--panel-bg', '#fbfbfa'],
  ink: ['--ink', '#1a1a1a'],
  inkSoft: ['--ink-soft', '#4d4d4d'],
  rule: ['--rule', '#d4d4d0'],
  skyblue: ['--oi-skyblue', '#56b4e9'],
  blue: ['--oi-blue', '#0072b2'],
  orange: ['--oi-orange', '#e69f00'],
  vermillion: ['--oi-vermillion', '#d55e00'],
  green: ['--oi-green', '#009e73'],
  purple: ['--oi-purple', '#cc79a7'],
  currentLine: ['--current-line-bg', '#ffe9b3'],
} as const;

type TokenName = keyof typeof TOKENS;

/** The palette, from the CSS variables in effect at `el` (or the fallbacks, e.g. in tests). */
export function readPalette(el?: Element | null): DensePalette {
  const style = el && typeof getComputedStyle === 'function' ? getComputedStyle(el) : null;
  const get = (name: TokenName): Colour => {
    const [variable, fallback] = TOKENS[name];
    const value = style?.getPropertyValue(variable).trim() ?? '';
    return colour(parseHexColor(value) ? value : fallback);
  };
  const font = style?.getPropertyValue('--font-ui').trim() || 'system-ui, sans-serif';
  return {
    background: get('panelBg'),
    border: colour('#6b6b6b'),
    ink: get('ink'),
    inkSoft: get('inkSoft'),
    pte: [get('rule'), get('skyblue'), get('vermillion'), get('green')],
    frame: [colour('#ffffff'), get('skyblue'), get('orange'), get('vermillion')],
    hatch: colour('#ffffff'),
    dots: colour('#5a5a5a'),
    tlbEmpty: colour('#ececea'),
    tlbEntry: get('skyblue'),
    tlbWrite: get('blue'),
    eventRow: get('currentLine'),
    eventBar: get('orange'),
    touchedBar: get('purple'),
    fontUi: font,
  };
}
