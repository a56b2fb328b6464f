import { describe, expect, it } from 'vitest';
import { fitText, formatCount, formatDelta, formatDeltaAscii, formatElapsedMs, formatHex, formatTimeNs, functionLabel } from './format';

describe('format', () => {
  it('formats time with units', () => {
    expect(formatTimeNs(850)).toBe('850 ns');
    expect(formatTimeNs(12_345)).toBe('12.3 µs');
    expect(formatTimeNs(4_560_000)).toBe('4.56 ms');
    expect(formatTimeNs(Number.NaN)).toBe('—');
  });
  it('formats elapsed wall-clock time, never rounding up', () => {
    expect(formatElapsedMs(0)).toBe('0.0 s');
    expect(formatElapsedMs(1_249)).toBe('1.2 s');
    expect(formatElapsedMs(59_999)).toBe('59.9 s');
    expect(formatElapsedMs(125_000)).toBe('2 min 05 s');
    expect(formatElapsedMs(-5)).toBe('0.0 s');
    expect(formatElapsedMs(Number.NaN)).toBe('0.0 s');
  });
  it('formats hex, counts and deltas', () => {
    expect(formatHex(26)).toBe('0x1a');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatDelta(3)).toBe('+3');
    expect(formatDelta(-2)).toBe('\u22122');
    expect(formatDelta(0)).toBe('');
    expect(formatDeltaAscii(-2)).toBe('-2');
    expect(formatDeltaAscii(0)).toBe('0');
  });
});

describe('labels', () => {
  it('adds () only to identifiers', () => {
    expect(functionLabel('do_numa_page')).toBe('do_numa_page()');
    expect(functionLabel('user access')).toBe('user access');
  });
  it('fits text into a width with an ellipsis', () => {
    expect(fitText('short', 200, 10)).toBe('short');
    expect(fitText('running user code on the CPU', 56, 10, 0.5)).toBe('running us…');
    expect(Array.from(fitText('x'.repeat(100), 100, 10, 0.5))).toHaveLength(20);
  });
});
