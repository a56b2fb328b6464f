import { describe, expect, it } from 'vitest';
import { parseStepInput } from './goToStep';

const ok = (text: string, total = 100_000_000): number => {
  const r = parseStepInput(text, total);
  if (!r.ok) throw new Error(r.message);
  return r.step;
};
const bad = (text: string, total = 100_000_000): string => {
  const r = parseStepInput(text, total);
  if (r.ok) throw new Error(`"${text}" was read as ${r.step}`);
  return r.message;
};

describe('parseStepInput', () => {
  it('reads plain and grouped digits', () => {
    expect(ok('1234567')).toBe(1_234_567);
    expect(ok('1,234,567')).toBe(1_234_567);
    expect(ok(' 1 234 567 ')).toBe(1_234_567);
    expect(ok('1\u202f234\u202f567')).toBe(1_234_567);
    expect(ok('1_234_567')).toBe(1_234_567);
    expect(ok("1'234'567")).toBe(1_234_567);
    expect(ok('0')).toBe(0);
    expect(ok('007')).toBe(7);
    expect(ok('999')).toBe(999);
    expect(ok('161', 161)).toBe(161);
  });

  it('says what is wrong, naming the range', () => {
    expect(bad('')).toBe('Type a step from 0 to 100,000,000.');
    expect(bad('abc')).toBe('"abc" is not a step number: type a step from 0 to 100,000,000.');
    expect(bad('12a')).toMatch(/^"12a" is not a step number/);
    expect(bad('-5')).toBe('"-5" is below 0: type a step from 0 to 100,000,000.');
    expect(bad('12.5')).toMatch(/^"12.5" is not a whole number/);
    expect(bad('1,23,456')).toBe('"1,23,456": group digits in threes (1,234,567) or type them plain (1234567).');
    expect(bad('1,234 567')).toMatch(/group digits in threes/);
    expect(bad('1234,567')).toMatch(/group digits in threes/);
    expect(bad('162', 161)).toBe('Step 162 is past the last step (161).');
    expect(bad('1,234,567', 1_000)).toBe('Step 1,234,567 is past the last step (1,000).');
    expect(bad('99999999999999999999')).toMatch(/is past the last step \(100,000,000\)/);
  });
});
