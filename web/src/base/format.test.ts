import { describe, expect, it } from 'vitest';
import { formatCount, formatDelta, formatDeltaAscii, formatHex, formatTimeNs } from './format';

describe('format', () => {
  it('formats time with units', () => {
    expect(formatTimeNs(850)).toBe('850 ns');
    expect(formatTimeNs(12_345)).toBe('12.3 µs');
    expect(formatTimeNs(4_560_000)).toBe('4.56 ms');
    expect(formatTimeNs(Number.NaN)).toBe('—');
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
