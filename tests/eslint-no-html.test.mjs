// The lint rule against HTML from data (eslint.config.js `noHtml`) fires on every way of putting
// markup into the DOM in the lab's source, stays quiet on text, and leaves tests alone.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: root });

/** The messages of no-restricted-syntax for `code` linted as if it were the file `file` (under web/src). */
async function htmlMessages(code, file = 'web/src/panels/Example.tsx') {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const BAD = {
  'dangerouslySetInnerHTML': 'export const A = (p: { t: string }) => <div dangerouslySetInnerHTML={{ __html: p.t }} />;\n',
  'innerHTML assignment': 'export function f(el: HTMLElement, t: string) {\n  el.innerHTML = t;\n}\n',
  'innerHTML compound assignment': 'export function f(el: HTMLElement, t: string) {\n  el.innerHTML += t;\n}\n',
  'innerHTML by a computed key': "export function f(el: HTMLElement, t: string) {\n  el['innerHTML'] = t;\n}\n",
  'outerHTML assignment': 'export function f(el: HTMLElement, t: string) {\n  el.outerHTML = t;\n}\n',
  'insertAdjacentHTML': "export function f(el: HTMLElement, t: string) {\n  el.insertAdjacentHTML('beforeend', t);\n}\n",
  'createContextualFragment': 'export function f(t: string) {\n  return document.createRange().createContextualFragment(t);\n}\n',
  'document.write': 'export function f(t: string) {\n  document.write(t);\n}\n',
};

for (const [what, code] of Object.entries(BAD)) {
  test(`the lint rule fires on ${what} in the lab's source`, async () => {
    const messages = await htmlMessages(code);
    assert.equal(messages.length, 1, `${what}: ${JSON.stringify(messages)}`);
    assert.match(messages[0], /^Never interpret data as HTML/);
  });
}

test('the rule leaves text alone: textContent, reading innerHTML, React text', async () => {
  const code =
    'export function f(el: HTMLElement, t: string) {\n  el.textContent = t;\n  return el.innerHTML.length;\n}\n' +
    'export const A = (p: { t: string }) => <div title={p.t}>{p.t}</div>;\n';
  assert.deepEqual(await htmlMessages(code), []);
});

test('tests may build DOM fixtures from markup', async () => {
  assert.deepEqual(await htmlMessages(BAD['innerHTML assignment'], 'web/src/panels/Example.test.tsx'), []);
});
