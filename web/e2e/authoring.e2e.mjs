// End-to-end tests of exports and authoring: "Copy as text" (one run and A/B) within 72 columns
// with the link and the commits, the frame as SVG and PNG and a step range as a .zip of SVGs,
// the scenario editor (inline errors from the engine, autosave across a reload, run, reset) and
// markup typed into a scenario shown as text. Run by run.mjs (which imports this file).
/* global DOMParser, Blob, Image -- these run in the page (page.evaluate), not in Node. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { useBrowser } from './harness.mjs';

const SCENARIO = 'numa-hint-fault-101';

/** Reads the clipboard after clicking `button` and waiting for its "Copied" status. */
async function copied(lab, button) {
  await lab.page.getByRole('button', { name: button }).first().click();
  await lab.page.getByText('Copied', { exact: true }).first().waitFor();
  return lab.page.evaluate(() => navigator.clipboard.readText());
}

/** Every line of `text` is at most 72 columns, except the link on a line of its own. */
function assertMailWidth(text, link) {
  for (const line of text.split('\n')) {
    if (line === link) continue;
    assert.ok([...line].length <= 72, `${[...line].length} columns: ${line}`);
    assert.doesNotMatch(line, /\s$/, `trailing space: "${line}"`);
  }
}

/** Clicks a button that downloads a file; returns its bytes and name. */
async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), bytes: readFileSync(path) };
}

/** The editor's whole text, as its "Copy scenario" button gives it (the editor draws only the lines in view). */
async function editorText(dialog) {
  await dialog.getByRole('button', { name: 'Copy scenario' }).click();
  await dialog.getByText('Scenario text copied.').waitFor();
  return dialog.page().evaluate(() => navigator.clipboard.readText());
}

describe('exports and authoring', () => {
  const browser = useBrowser({ viewport: { width: 1280, height: 720 } });

  it('Copy as text: one run and A against B, at most 72 columns, the link and each toggle’s commit', async () => {
    const lab = await browser.newLab();
    await lab.openScenario(SCENARIO, `v=2&sc=${SCENARIO}&step=37`);
    await lab.waitForStep(37, 30_000);
    const text = await copied(lab, 'Copy as text');
    const link = text.split('\n').find((l) => l.startsWith(lab.baseUrl.replace(/[?#].*$/, '')));
    assert.ok(link, `the link is in the text:\n${text}`);
    assert.match(link, /[#&]step=37(&|$)/);
    assertMailWidth(text, link);
    assert.match(text, /^mmviz numa-hint-fault-101: /m);
    assert.match(text, /^At step 37 of /m);
    assert.match(text, /^ {2}numa_delay_map = (on|off): b99a342d4f11 \(v5\.13\)$/m);
    // Only counters that moved: none of the rows is 0 with 0 this step.
    for (const row of text.split('\n').filter((l) => /^[a-z_0-9]+\s+-?\d+\s+[-+]?\d+$/.test(l))) assert.doesNotMatch(row, /\s0\s+0$/, row);
    assert.match(text, /more counters? at 0: not shown/);
    // The link reopens the same frame.
    const other = await browser.newLab();
    await other.openLink(link);
    await other.waitForStep(37, 30_000);
    await other.page.close();

    // A against B: both columns and the change.
    await lab.openScenario(undefined, `v=2&sc=${SCENARIO}&step=39&ab=t.numa_delay_map:false,true&bstep=39`);
    await lab.page.getByRole('region', { name: 'A/B comparison' }).waitFor({ timeout: 60_000 });
    const ab = await copied(lab, 'Copy as text');
    const abLink = ab.split('\n').find((l) => l.includes('#v=2&'));
    assert.ok(abLink && /[#&]ab=/.test(abLink), ab);
    assertMailWidth(ab, abLink);
    assert.match(ab, /^counter +A +B +B vs A$/m);
    assert.match(ab, /^A\/B: numa_delay_map: /m);
    assert.match(ab, /^ {2}numa_delay_map = off \/ on: b99a342d4f11 \(v5\.13\)$/m);
    await lab.page.close();
  });

  it('Export…: the frame as a valid SVG with its caption and link, as a PNG, and a step range as a .zip of SVGs', async () => {
    const lab = await browser.newLab();
    await lab.openScenario(SCENARIO, `v=2&sc=${SCENARIO}&step=12`);
    await lab.waitForStep(12, 30_000);
    await lab.page.getByRole('button', { name: 'Export…' }).click();
    const dialog = lab.page.getByRole('dialog', { name: 'Export' });
    await dialog.waitFor();
    await lab.screenshot('authoring-01-export-dialog');
    const svg = await download(lab.page, 'Frame as SVG');
    assert.equal(svg.name, `${SCENARIO}-step-12.svg`);
    const svgText = svg.bytes.toString('utf8');
    // It parses as SVG, carries the caption and a link to this frame, and draws as an image: in a
    // page of its own (the lab's CSP would refuse the file's style attributes parsed in its document).
    const parser = await browser.newLab();
    const check = await parser.page.evaluate(async (t) => {
      const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
      const url = URL.createObjectURL(new Blob([t], { type: 'image/svg+xml' }));
      const img = new Image();
      const drawn = await new Promise((resolve) => {
        img.onload = () => resolve(img.naturalWidth > 0 && img.naturalHeight > 0);
        img.onerror = () => resolve(false);
        img.src = url;
      });
      return {
        errors: doc.getElementsByTagName('parsererror').length,
        root: doc.documentElement.localName,
        ns: doc.documentElement.namespaceURI,
        caption: [...doc.querySelectorAll('svg > text')].map((n) => n.textContent).join('\n'),
        href: doc.querySelector('a')?.getAttribute('href') ?? '',
        drawn,
      };
    }, svgText);
    await parser.page.close();
    assert.deepEqual([check.errors, check.root, check.ns, check.drawn], [0, 'svg', 'http://www.w3.org/2000/svg', true]);
    assert.match(check.caption, /mmviz numa-hint-fault-101: /);
    assert.match(check.caption, /At step 12 of /);
    assert.match(check.href, /#v=2&.*step=12/);
    // A look at it: the exported file on its own page.
    const view = await browser.newLab();
    await view.page.setContent(`<body style="margin:0;background:#888">${svgText.replace(/^<\?xml[^>]*>/, '')}</body>`);
    await view.screenshot('authoring-02-exported-svg', { fullPage: true });
    await view.page.close();

    const png = await download(lab.page, 'Frame as PNG');
    assert.equal(png.name, `${SCENARIO}-step-12.png`);
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.bytes.length > 5_000, `a PNG of the frame, ${png.bytes.length} bytes`);

    await dialog.getByLabel('From').fill('10');
    await dialog.getByLabel('To').fill('14');
    const zip = await download(lab.page, 'Steps as SVGs (.zip)');
    assert.equal(zip.name, `${SCENARIO}-steps-10-14.zip`);
    const files = unzipSync(new Uint8Array(zip.bytes));
    assert.deepEqual(Object.keys(files).sort(), [10, 11, 12, 13, 14].map((n) => `${SCENARIO}-step-${n}.svg`).sort());
    for (const [name, data] of Object.entries(files)) {
      const n = name.match(/step-(\d+)/)[1];
      assert.match(Buffer.from(data).toString('utf8'), new RegExp(`At step ${n} of `), name);
    }
    // The lab is back at the step it was at.
    await dialog.getByRole('status').getByText(/Saved 5 SVGs/).waitFor();
    await lab.waitForStep(12, 10_000);
    // A bad range is refused with a message naming the field.
    await dialog.getByLabel('From').fill('ten');
    await dialog.getByRole('button', { name: 'Steps as SVGs (.zip)' }).click();
    await dialog.getByRole('alert').getByText('From must be a whole number of steps (got "ten")').waitFor();
    await lab.page.close();
  });

  it('the editor: the engine’s errors inline, every change kept across a reload, run it, reset to the built-in', async () => {
    const lab = await browser.newLab();
    await lab.openScenario('pcp-101');
    await lab.page.getByRole('button', { name: /^Edit…/ }).click();
    const dialog = lab.page.getByRole('dialog', { name: 'Edit scenario' });
    const editor = dialog.getByRole('textbox', { name: 'Scenario text (TOML)' });
    await editor.waitFor({ timeout: 30_000 });
    await dialog.getByRole('status').getByText(/The engine reads it/).waitFor({ timeout: 30_000 });
    // A field the format does not have: the engine's message, with its line, inline and listed.
    await editor.click();
    await lab.page.keyboard.press('Control+Home');
    await lab.page.keyboard.press('End');
    await lab.page.keyboard.press('Enter');
    await lab.page.keyboard.type('wat = 1');
    const problem = dialog.getByRole('list', { name: 'Problems' }).getByRole('listitem').first();
    await problem.getByText(/^Line 2, field wat: unknown field `wat`/).waitFor({ timeout: 30_000 });
    assert.ok(await dialog.locator('.cm-lintRange-error, .cm-lint-marker-error').count() > 0, 'the line is marked in the editor');
    await lab.screenshot('authoring-03-editor-error');
    // Completion offers the format's fields.
    await lab.page.keyboard.press('Enter');
    await lab.page.keyboard.type('[kno');
    await lab.page.getByRole('option', { name: /\[knobs\]/ }).first().waitFor({ timeout: 10_000 });
    await lab.page.keyboard.press('Escape');
    // Reload: the edit is still there.
    await lab.page.reload();
    await lab.readout().waitFor({ state: 'visible', timeout: 30_000 });
    await lab.page.getByRole('button', { name: 'Edit… (your edit)' }).click();
    await editor.waitFor({ timeout: 30_000 });
    await dialog.getByText(/Your edit from .* is back/).waitFor();
    const kept = await editorText(dialog);
    assert.match(kept, /^wat = 1$/m);
    assert.match(kept, /^\[kno$/m);
    // Fix it (and change the title), run it: the lab runs the edited text and the link carries it.
    await editor.click();
    await lab.page.keyboard.press('Control+a');
    const fixed = kept
      .replace(/^wat = 1\n/m, '')
      .replace(/^\[kno\n/m, '')
      .replace(/^title = ".*"$/m, 'title = "PCP 101, edited <img src=x onerror=alert(1)>"')
      .replace(/^(\[\[chapter\]\]\ntitle = ")/m, '$1<script>window.__hacked = 1</script><b>bold</b> ');
    // Pasted (CodeMirror reads the paste event itself). Not keyboard.insertText: that commits text
    // as an input method does, and Chromium's editing then writes a style attribute into the
    // editable DOM, which the lab's CSP refuses (CodeMirror redraws from its state either way).
    await lab.page.evaluate((t) => navigator.clipboard.writeText(t), fixed);
    await lab.page.keyboard.press('Control+v');
    await dialog.getByRole('status').getByText(/The engine reads it: “PCP 101, edited <img src=x onerror=alert\(1\)>”/).waitFor({ timeout: 30_000 });
    await dialog.getByRole('button', { name: 'Run it' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 60_000 });
    await lab.page.waitForFunction(() => /[#&]s=/.test(location.hash), null, { timeout: 30_000 });
    const picked = await lab.page.getByRole('combobox', { name: 'Scenario' }).locator('option:checked').textContent();
    assert.match(picked, /PCP 101, edited <img src=x onerror=alert\(/);
    // Markup in the title and a chapter's narration is text: nothing of it runs or renders.
    await lab.page.getByText(/<script>window.__hacked = 1<\/script><b>bold<\/b>/).first().waitFor({ timeout: 30_000 });
    assert.equal(await lab.page.locator('img[src="x"], main b, main script').count(), 0, 'markup is shown as text');
    assert.equal(await lab.page.evaluate(() => window.__hacked), undefined);
    await lab.screenshot('authoring-04-edited-run');
    await lab.page.close();
  });

  it('Reset to the built-in asks first, then puts the built-in text back and forgets the edit', async () => {
    const lab = await browser.newLab();
    await lab.openScenario('pcp-101');
    await lab.page.getByRole('button', { name: /^Edit…/ }).click();
    const dialog = lab.page.getByRole('dialog', { name: 'Edit scenario' });
    const editor = dialog.getByRole('textbox', { name: 'Scenario text (TOML)' });
    await editor.waitFor({ timeout: 30_000 });
    await editor.click();
    await lab.page.keyboard.press('Control+End');
    await lab.page.keyboard.type('\n# a note');
    await dialog.getByRole('button', { name: 'Reset to the built-in' }).click();
    await dialog.getByRole('alert').getByText(/removes your edit from this browser/).waitFor();
    await dialog.getByRole('button', { name: 'Yes, discard my edit' }).click();
    assert.doesNotMatch(await editorText(dialog), /# a note/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await lab.page.getByRole('button', { name: 'Edit…', exact: true }).waitFor();
    await lab.page.close();
  });

  it('raised no page errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
