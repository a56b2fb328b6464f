// WCAG 2.x colour contrast (pure): relative luminance of sRGB colours and the contrast ratio
// between two of them (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio).

/** An sRGB colour, 0..255 per channel. */
export type Rgb = readonly [number, number, number];

/** Parses "#rgb" or "#rrggbb" into [r, g, b]; null for anything else. */
export function parseHex(text: string): Rgb | null {
  const t = text.trim();
  const m6 = /^#([0-9a-f]{6})$/i.exec(t);
  if (m6?.[1]) {
    const v = parseInt(m6[1], 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const m3 = /^#([0-9a-f]{3})$/i.exec(t);
  if (m3?.[1]) {
    const [r = 0, g = 0, b = 0] = [...m3[1]].map((c) => parseInt(c + c, 16));
    return [r, g, b];
  }
  return null;
}

/** One channel (0..255) linearised as WCAG defines it. */
function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance (0 for black, 1 for white). */
export function relativeLuminance([r, g, b]: Rgb): number {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Contrast ratio of two colours, 1 (same) to 21 (black on white); the order does not matter. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** The least contrast WCAG 2 AA asks of normal-size text. */
export const AA_TEXT = 4.5;
/** The least contrast WCAG 2 AA asks of user-interface parts and graphics (1.4.11). */
export const AA_GRAPHICS = 3;
