import { describe, expect, it } from 'vitest';
import { fnv1a32Hex } from './hash';

describe('fnv1a32Hex', () => {
  it('matches the published FNV-1a test vectors', () => {
    expect(fnv1a32Hex('')).toBe('811c9dc5');
    expect(fnv1a32Hex('a')).toBe('e40c292c');
    expect(fnv1a32Hex('foobar')).toBe('bf9cf968');
  });
  it('is always 8 hex digits and differs for a one-character change', () => {
    const a = fnv1a32Hex('[scenario]\nid = "x"\n');
    const b = fnv1a32Hex('[scenario]\nid = "y"\n');
    expect(a).toMatch(/^[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });
});
