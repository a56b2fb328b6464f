// Every version of every built-in scenario this lab has shipped, by the hash a link carries
// (scenarioArchive.json, kept by `node scripts/scenario-archive.mjs`). Loaded only when a link
// names a version that differs from the current one: the file is a chunk of its own.
import { z } from 'zod';
import { fnv1a32Hex } from '../base/hash';

/** One archived version of a built-in scenario. */
export interface ArchivedScenario {
  id: string;
  hash: string;
  /** The day it was first seen on main (YYYY-MM-DD). */
  date: string;
  text: string;
}

const archiveSchema = z.object({
  scenarios: z.record(z.string(), z.record(z.string().regex(/^[0-9a-f]{8}$/), z.object({ date: z.string(), text: z.string() }))),
});

let loaded: Promise<z.infer<typeof archiveSchema>> | null = null;

/** Reads the archive (once per page). */
async function archive(): Promise<z.infer<typeof archiveSchema>> {
  loaded ??= import('./scenarioArchive.json?raw').then((m) => archiveSchema.parse(JSON.parse(m.default)));
  try {
    return await loaded;
  } catch (err) {
    loaded = null;
    throw err;
  }
}

/** The version of built-in `id` with text hash `hash`, or null when this lab never shipped it. Checks the text against its hash. */
export async function archivedScenario(id: string, hash: string): Promise<ArchivedScenario | null> {
  const v = (await archive()).scenarios[id]?.[hash];
  if (!v || fnv1a32Hex(v.text) !== hash) return null;
  return { id, hash, date: v.date, text: v.text };
}

/** How two texts of a scenario differ, for a message: "3 lines changed, 2 added, 1 removed". */
export function lineChanges(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // Lines of each kept in the other (a multiset count): enough to say how much changed.
  const count = new Map<string, number>();
  for (const l of b) count.set(l, (count.get(l) ?? 0) + 1);
  let kept = 0;
  for (const l of a) {
    const n = count.get(l) ?? 0;
    if (n > 0) {
      kept++;
      count.set(l, n - 1);
    }
  }
  const removed = a.length - kept;
  const added = b.length - kept;
  const changed = Math.min(removed, added);
  const parts = [
    changed > 0 ? `${changed} line${changed === 1 ? '' : 's'} changed` : '',
    added - changed > 0 ? `${added - changed} added` : '',
    removed - changed > 0 ? `${removed - changed} removed` : '',
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : 'no line changed';
}
