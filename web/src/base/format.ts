// Number formatting for the UI (units in names, kernel-style hex).
import { textWidthPx, type TextStyle } from './measureText';
import { format } from 'd3';

const groupInt = format(',d');

/** Formats a simulated time in nanoseconds as "850 ns", "12.3 µs" or "4.56 ms". */
export function formatTimeNs(timeNs: number): string {
  if (!Number.isFinite(timeNs)) return '—';
  if (Math.abs(timeNs) < 1_000) return `${Math.round(timeNs)} ns`;
  if (Math.abs(timeNs) < 1_000_000) return `${format('.3~r')(timeNs / 1_000)} µs`;
  return `${format('.3~r')(timeNs / 1_000_000)} ms`;
}

/** Formats a wall-clock duration in milliseconds as "0.4 s", "12.3 s" or "2 min 05 s". */
export function formatElapsedMs(elapsedMs: number): string {
  const ms = Number.isFinite(elapsedMs) ? Math.max(0, elapsedMs) : 0;
  const tenths = Math.floor(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Formats a page number in kernel hex style, e.g. 0x1a. */
export function formatHex(value: number): string {
  return `0x${Math.trunc(value).toString(16)}`;
}

/** Formats a counter value with thousands separators. */
export function formatCount(value: number): string {
  return groupInt(value);
}

/** Formats a change: "+3", "−2" (minus sign), or "" for zero. */
export function formatDelta(delta: number): string {
  if (delta === 0 || !Number.isFinite(delta)) return '';
  return delta > 0 ? `+${groupInt(delta)}` : `\u2212${groupInt(-delta)}`;
}

/** Formats a delta for plain-text output (ASCII minus), "0" for no change. */
export function formatDeltaAscii(delta: number): string {
  if (delta === 0 || !Number.isFinite(delta)) return '0';
  return delta > 0 ? `+${delta}` : `-${-delta}`;
}

/** Shows a kernel function name as "name()", or as is when it is not a C identifier (e.g. "user access"). */
export function functionLabel(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${name}()` : name;
}

/**
 * Shortens `text` with an ellipsis so that it fits `widthPx` at `fontPx`: measured in the
 * label's font when `style` is given and a canvas can measure (base/measureText.ts), else
 * assuming an average glyph width of `charEm` em (0.6 suits monospace).
 */
export function fitText(text: string, widthPx: number, fontPx: number, charEm = 0.56, style?: TextStyle): string {
  const chars = Array.from(text);
  if (style) {
    const full = textWidthPx(text, fontPx, style);
    if (full !== null) {
      if (full <= widthPx) return text;
      // The longest prefix that fits with its ellipsis (widths grow with the prefix).
      let lo = 0;
      let hi = chars.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if ((textWidthPx(`${chars.slice(0, mid).join('')}…`, fontPx, style) ?? Infinity) <= widthPx) lo = mid;
        else hi = mid - 1;
      }
      return `${chars.slice(0, lo).join('').trimEnd()}…`;
    }
  }
  const maxChars = Math.max(1, Math.floor(widthPx / (fontPx * charEm)));
  if (chars.length <= maxChars) return text;
  return `${chars.slice(0, Math.max(0, maxChars - 1)).join('')}…`;
}
