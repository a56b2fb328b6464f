// The bad-input catalogue of the lab's decoders: links (urlToState) and pasted or linked text
// against the engine's size limits (base/limits.ts, generated from limits.rs). Each bad input
// gives a message that says what is wrong and where (the key of the link, the box), never a
// throw, and comes back at once (a generous bound: the point is no hang). The CLI's catalogue is
// wasm-core/cli/tests/bad_inputs.rs.
import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import { MAX_LINK_CHARS, MAX_PASTE_BYTES, MAX_SCENARIO_BYTES, sizeProblem, utf8Bytes } from '../base/limits';
import { urlToState } from './url';

/** Binary garbage as a link carries it (every byte percent-encoded), deterministic. */
function garbage(n: number): string {
  let x = 0x2545f491;
  let out = '';
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += `%${((x >>> 0) & 0xff).toString(16).padStart(2, '0')}`;
  }
  return out;
}

const SCENARIO = 'format = 1\nid = "x"\ntitle = "x"\n';

/** [what, fragment, words the message must contain]. */
const BAD_LINKS: [string, string, string[]][] = [
  ['no version', '#sc=pcp-101', ['no format version (v=)']],
  ['a version that is a word', '#v=two&sc=pcp-101', ['format version "two" is not a number']],
  ['a version from the future', '#v=99&sc=pcp-101', ['newer version of mmviz', 'v=99']],
  ['no scenario', '#v=2&step=3', ['names no scenario (sc= or s=)']],
  ['an empty scenario id', '#v=2&sc=', ['scenario id (sc=)']],
  ['markup as the scenario id', '#v=2&sc=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', ['scenario id (sc=) may only contain']],
  ['a step that is a word', '#v=2&sc=pcp-101&step=ten', ['step (step=)']],
  ['a step of 10^30', '#v=2&sc=pcp-101&step=1000000000000000000000000000000', ['step (step=)']],
  ['a negative seed', '#v=2&sc=pcp-101&seed=-1', ['seed (seed=)']],
  ['a toggle value that is markup', '#v=2&sc=pcp-101&t.numa_delay_map=%3Cb%3Eon%3C%2Fb%3E', ['toggle "numa_delay_map" is not a toggle value']],
  ['a param that is not a number', '#v=2&sc=pcp-101&p.accesses=lots', ['param "accesses"']],
  ['a param of 1e999', '#v=2&sc=pcp-101&p.accesses=1e999', ['param "accesses"', 'not a finite number']],
  ['a toggle name that is markup', '#v=2&sc=pcp-101&t.%3Cscript%3E=on', ['not a valid toggle name']],
  ['a damaged custom scenario', '#v=2&s=NoTlZs!!!', ['custom scenario (s=) is damaged']],
  ['binary garbage', `#v=2&sc=pcp-101&s=${garbage(64)}`, ['could not be read']],
  ['broken percent-encoding', '#v=2&sc=pcp-101&sel=%E0%A4%A', ['not valid percent-encoding']],
  ['a key twice', '#v=2&sc=pcp-101&step=1&step=2', ['"step" appears twice']],
  ['an A/B comparison of nothing', '#v=2&sc=pcp-101&ab=t.numa_delay_map:', ['A/B comparison (ab=)', 'two runs']],
  ['an A/B comparison of an unknown kind', '#v=2&sc=pcp-101&ab=q.x:a,b', ['A/B comparison (ab=)']],
  ['a schedule too long to be one', `#v=2&sc=pcp-101&sched=${'1:1,'.repeat(20_000)}`, ['schedule (sched=)']],
  ['a selection that names no panel', '#v=2&sc=pcp-101&sel=nowhere', ['selection (sel=)']],
  ['a link longer than the limit', `#v=2&sc=pcp-101&pc=${'x'.repeat(MAX_LINK_CHARS)}`, ['too long', `at most ${MAX_LINK_CHARS.toLocaleString('en')}`]],
  [
    'a custom scenario over the size limit',
    `#v=2&s=${compressToEncodedURIComponent(SCENARIO + '#'.repeat(MAX_SCENARIO_BYTES))}`,
    ['custom scenario (s=)', `at most ${MAX_SCENARIO_BYTES.toLocaleString('en')}`],
  ],
];

describe('bad links', () => {
  it('the catalogue has distinct cases', () => {
    expect(new Set(BAD_LINKS.map(([what]) => what)).size).toBe(BAD_LINKS.length);
    expect(new Set(BAD_LINKS.map(([, link]) => link)).size).toBe(BAD_LINKS.length);
  });
  for (const [what, fragment, words] of BAD_LINKS) {
    it(`${what}: a message that names the part of the link`, () => {
      const start = performance.now();
      const read = urlToState(fragment);
      const took = performance.now() - start;
      expect(read.ok, JSON.stringify(read)).toBe(false);
      if (read.ok) return;
      expect(read.error).toMatch(/^This link could not be read: /);
      if (process.env.MMVIZ_CATALOGUE_PRINT) console.log(`${what}: ${read.error.slice(0, 300)}`);
      for (const w of words) expect(read.error).toContain(w);
      expect(read.error.length).toBeLessThan(2_000);
      expect(took).toBeLessThan(5_000);
    });
  }
});

describe('pasted and linked text against the engine limits', () => {
  it('counts UTF-8 bytes as the engine does', () => {
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('→')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
    expect(utf8Bytes('😀'.repeat(10))).toBe(new TextEncoder().encode('😀'.repeat(10)).length);
  });
  it('a 50 MB paste is refused with the engine’s words, at once', () => {
    const start = performance.now();
    const msg = sizeProblem('the text', 'x'.repeat(50 << 20), MAX_PASTE_BYTES);
    expect(msg).toBe('the text is 52,428,800 bytes; at most 1,048,576 (1 MiB) are read');
    expect(performance.now() - start).toBeLessThan(5_000);
  });
  it('text at the limit passes, one byte more does not, and multi-byte text counts its bytes', () => {
    expect(sizeProblem('the text', 'x'.repeat(MAX_PASTE_BYTES), MAX_PASTE_BYTES)).toBeNull();
    expect(sizeProblem('the text', 'x'.repeat(MAX_PASTE_BYTES + 1), MAX_PASTE_BYTES)).toContain('1,048,577 bytes');
    expect(sizeProblem('the text', 'é'.repeat(MAX_PASTE_BYTES / 2 + 1), MAX_PASTE_BYTES)).toContain('1,048,578 bytes');
  });
  it('empty text and markup are not a size problem (the engine names what it cannot read)', () => {
    expect(sizeProblem('the text', '', MAX_PASTE_BYTES)).toBeNull();
    expect(sizeProblem('the text', '<script>alert(1)</script>', MAX_PASTE_BYTES)).toBeNull();
  });
});
