import { describe, expect, it } from 'vitest';
import { fnv1a32Hex } from '../base/hash';
import raw from './scenarioArchive.json?raw';
import { archivedScenario, lineChanges } from './archive';

describe('the archive of shipped scenario versions', () => {
  const stored = JSON.parse(raw) as { scenarios: Record<string, Record<string, { date: string; text: string }>> };

  it('keys every version by the hash of its text, as links carry it', () => {
    let versions = 0;
    for (const [, byHash] of Object.entries(stored.scenarios)) {
      for (const [hash, v] of Object.entries(byHash)) {
        expect(fnv1a32Hex(v.text)).toBe(hash);
        expect(v.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        versions++;
      }
    }
    expect(versions).toBeGreaterThan(100);
  });

  it('gives the version a link names, and nothing for a hash it never shipped', async () => {
    const [id, byHash] = Object.entries(stored.scenarios).find(([, v]) => Object.keys(v).length > 2)!;
    const [hash, v] = Object.entries(byHash).at(-1)!;
    expect(await archivedScenario(id, hash)).toEqual({ id, hash, date: v.date, text: v.text });
    expect(await archivedScenario(id, '00000000')).toBeNull();
    expect(await archivedScenario('no-such-scenario', hash)).toBeNull();
  });
});

describe('lineChanges', () => {
  it('counts changed, added and removed lines', () => {
    expect(lineChanges('a\nb\nc', 'a\nb\nc')).toBe('no line changed');
    expect(lineChanges('a\nb\nc', 'a\nB\nc')).toBe('1 line changed');
    expect(lineChanges('a\nb', 'a\nb\nc\nd')).toBe('2 added');
    expect(lineChanges('a\nb\nc', 'x')).toBe('1 line changed, 2 removed');
  });
});
