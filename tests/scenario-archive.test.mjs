// Every built-in scenario's current text is in web/src/share/scenarioArchive.json, so that a link
// made with it keeps opening it after the scenario changes (the lab's archive of shipped
// versions). After changing a scenario, run `node scripts/scenario-archive.mjs`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archivedTexts, currentScenarios, fnv1a32Hex, missing } from '../scripts/scenario-archive.mjs';

test('every built-in scenario as it is now is in the archive of shipped versions', () => {
  const absent = missing();
  assert.deepEqual(absent, [], `not archived: ${absent.join(', ')}; run \`node scripts/scenario-archive.mjs\``);
});

test('the archive keys each version by the hash links carry, and never drops a scenario', () => {
  const texts = archivedTexts();
  for (const [id, byHash] of Object.entries(texts)) {
    for (const [hash, text] of Object.entries(byHash)) assert.equal(fnv1a32Hex(text), hash, `${id} ${hash}`);
  }
  for (const id of Object.keys(currentScenarios())) assert.ok(texts[id], id);
});
