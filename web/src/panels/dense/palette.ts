// Colours of the dense views, read from the theme's tokens (src/styles/) so that canvas and SVG
// look like one app in every theme. Packed for direct pixel writes.
import { parseHex } from '../../base/contrast';
import type { ThemeName } from '../../theme/theme';
import { themeTokens, type Tokens } from '../../theme/themeTokens';

/** Parses "#rgb" or "#rrggbb" (what the theme's tokens are) into [r, g, b]; null for anything else. */
export function parseHexColor(text: string): [number, number, number] | null {
  const c = parseHex(text);
  return c ? [c[0], c[1], c[2]] : null;
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
  // A token that is not a hex colour (none is) would draw black rather than fail.
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
  /** The light line under rings, so that they read on any fill. */
  halo: Colour;
  fontUi: string;
}

/** The frame states' tokens, by state code (free, mapped, isolated, migrating): MachineView's SVG cells read the same. */
export const FRAME_TOKENS = ['--frame-free', '--frame-mapped', '--frame-isolated', '--frame-migrating'] as const;
/** The PTE kinds' tokens, by kind code (none, present, PROT_NONE, migration). */
export const PTE_TOKENS = ['--pte-none', '--pte-present', '--pte-protnone', '--pte-migration'] as const;

const fallbacks = new Map<ThemeName, Tokens>();

/**
 * The palette from the tokens in effect at `el`, read now. Where no stylesheet applies (`el`
 * null, or jsdom) the values of `theme`'s token file.
 */
export function readPalette(el?: Element | null, theme: ThemeName = 'light'): DensePalette {
  const style = el && typeof getComputedStyle === 'function' ? getComputedStyle(el) : null;
  let fallback = fallbacks.get(theme);
  if (!fallback) {
    fallback = themeTokens(theme);
    fallbacks.set(theme, fallback);
  }
  const get = (token: string): Colour => {
    const value = style?.getPropertyValue(token).trim() ?? '';
    return colour(parseHexColor(value) ? value : (fallback.get(token) ?? ''));
  };
  const font = style?.getPropertyValue('--font-ui').trim() || fallback.get('--font-ui') || 'sans-serif';
  const four = (tokens: readonly [string, string, string, string]): [Colour, Colour, Colour, Colour] => [get(tokens[0]), get(tokens[1]), get(tokens[2]), get(tokens[3])];
  return {
    background: get('--panel-bg'),
    border: get('--frame-stroke'),
    ink: get('--ink'),
    inkSoft: get('--ink-soft'),
    pte: four(PTE_TOKENS),
    frame: four(FRAME_TOKENS),
    hatch: get('--hatch'),
    dots: get('--dots'),
    tlbEmpty: get('--tlb-empty'),
    tlbEntry: get('--tlb-entry'),
    tlbWrite: get('--tlb-write'),
    eventRow: get('--current-line-bg'),
    eventBar: get('--cpu-event'),
    touchedBar: get('--cpu-touched'),
    halo: get('--halo'),
    fontUi: font,
  };
}

/** The palette of `theme`, read from the page's root (where the theme is applied) at the time of the call: a theme switch asks for it again. */
export function themePalette(theme: ThemeName): DensePalette {
  return readPalette(typeof document === 'undefined' ? null : document.documentElement, theme);
}
