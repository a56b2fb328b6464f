import { describe, expect, it } from 'vitest';
import { toPlain } from './normalize';

describe('toPlain', () => {
  it('turns nested Maps and BigInts into plain data', () => {
    const input = { a: new Map<string, unknown>([['x', 1n], ['y', [new Map([['z', true]])]]]), b: [1, 'two', null] };
    expect(toPlain(input)).toEqual({ a: { x: 1, y: [{ z: true }] }, b: [1, 'two', null] });
  });
});
