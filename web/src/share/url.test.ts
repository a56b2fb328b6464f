import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import engineFixture from '../engine/fixtures/engine.json';
import golden from './fixtures/links.json';
import { quoteForMessage, RENAMED_TOGGLES, stateToUrl, upgradePairs, urlToState, URL_FORMAT_VERSION, type ShareState } from './url';

const base: ShareState = {
  scenario: { kind: 'builtin', id: 'numa-hint-fault-101', hash: '0a1b2c3d' },
  toggles: {},
  params: {},
  step: 0,
  selection: null,
};

const cases: [string, ShareState][] = [
  ['defaults at step 0', base],
  ['no hash', { ...base, scenario: { kind: 'builtin', id: 'x', hash: null } }],
  ['bool toggles', { ...base, toggles: { numa_delay_map: true, other_patch: false }, step: 10 }],
  ['enum toggle', { ...base, toggles: { flush_mode: 'batched' } }],
  ['params incl. negative and fractional', { ...base, params: { pages: 16, scan_delay_ms: 2.5, bias: -3 } }],
  ['large step', { ...base, step: 987_654_321 }],
  ['a step past 10^9 (the reader took 9 digits at most before)', { ...base, step: 12_345_678_901 }],
  ['selection', { ...base, step: 3, selection: { panel: 'machine', object: 'pfn-12' } }],
  ['pte selection', { ...base, selection: { panel: 'pagetable', object: 'pte-100-64' } }],
  [
    'custom scenario text with unicode',
    {
      ...base,
      scenario: { kind: 'custom', text: '# Ünïcødé ✓ 日本語 🧠\n[scenario]\nid = "mine"\ntitle = "a & b = <c> + $d %%"\n' },
      toggles: { numa_delay_map: true },
      params: { pages: 4 },
      step: 7,
    },
  ],
  ['custom empty-ish text', { ...base, scenario: { kind: 'custom', text: ' ' } }],
  ['A/B of a toggle, with both steps', { ...base, step: 39, ab: { kind: 'toggle', id: 'numa_delay_map', a: false, b: true }, bStep: 39 }],
  ['A/B of an enum toggle, B at A\'s partner', { ...base, ab: { kind: 'toggle', id: 'mremap_flush', a: 'dirty', b: 'present' }, bStep: null }],
  ['A/B of kernels', { ...base, ab: { kind: 'kernel', a: 'v4.17', b: 'v5.13' }, bStep: 5 }],
  ['A/B of presets', { ...base, ab: { kind: 'preset', a: 'page_alloc/base', b: 'page_alloc/patch7' }, bStep: 0 }],
  ['plots chosen, as rates', { ...base, plots: { counters: ['numa_hint_faults', 'nr_tlb_remote_flush'], rate: true } }],
  ['plots as rates with the default counters', { ...base, plots: { counters: null, rate: true } }],
  ['a run at another seed', { ...base, scenario: { kind: 'builtin', id: 'numa-pmbench', hash: null, seed: 3 }, params: { node1_cpus: 16 }, step: 12 }],
  ['a custom scenario at seed 0', { ...base, scenario: { kind: 'custom', text: 'x', seed: 0 } }],
  ['a run under a schedule', { ...base, scenario: { kind: 'builtin', id: 'mremap-race-101', hash: null, schedule: '4:1,9:3' }, toggles: { mremap_flush: 'deferred' }, step: 31 }],
  ['a schedule at a seed', { ...base, scenario: { kind: 'builtin', id: 'mremap-race-101', hash: null, seed: 5, schedule: '12:0' } }],
  [
    'one schedule for both lanes of an A/B comparison',
    { ...base, scenario: { kind: 'builtin', id: 'mremap-race-101', hash: null, schedule: '4:1' }, ab: { kind: 'toggle', id: 'mremap_flush', a: 'deferred', b: 'dirty' }, bStep: 9 },
  ],
  ['a schedule the engine will refuse travels as typed', { ...base, scenario: { kind: 'custom', text: 'x', schedule: '4:1, x&y=<b>' } }],
  ['lecture mode at a step', { ...base, step: 34, lecture: 'on' }],
  ['lecture mode on its first slide', { ...base, lecture: 'intro' }],
  ['an embed of some steps', { ...base, step: 20, embed: true, range: { from: 16, to: 40 } }],
];

describe('stateToUrl / urlToState round trip', () => {
  it.each(cases)('%s', (_name, state) => {
    const fragment = stateToUrl(state);
    expect(fragment.startsWith(`v=${URL_FORMAT_VERSION}&`)).toBe(true);
    const back = urlToState(`#${fragment}`);
    expect(back).toEqual({ ok: true, state, warnings: [] });
  });

  it('is stable: the same state always gives the same fragment, sorted', () => {
    const a = stateToUrl({ ...base, toggles: { b: true, a: false }, params: { z: 1, y: 2 } });
    const b = stateToUrl({ ...base, toggles: { a: false, b: true }, params: { y: 2, z: 1 } });
    expect(a).toBe(b);
    expect(a).toBe('v=2&sc=numa-hint-fault-101&h=0a1b2c3d&t.a=false&t.b=true&p.y=2&p.z=1&step=0');
  });

  it('writes the seed as its own key, only when there is one', () => {
    expect(stateToUrl({ ...base, scenario: { kind: 'builtin', id: 'numa-pmbench', hash: null, seed: 2 }, params: { node1_cpus: 16 } })).toBe(
      'v=2&sc=numa-pmbench&p.node1_cpus=16&seed=2&step=0',
    );
    expect(stateToUrl(base)).not.toContain('seed=');
  });

  it('writes the schedule after the seed, readable (":" and "," as they are), only when there is one', () => {
    expect(stateToUrl({ ...base, scenario: { kind: 'builtin', id: 'mremap-race-101', hash: 'e40c292c', seed: 2, schedule: '4:1,9:3' }, toggles: { mremap_flush: 'deferred' } })).toBe(
      'v=2&sc=mremap-race-101&h=e40c292c&t.mremap_flush=deferred&seed=2&sched=4:1,9:3&step=0',
    );
    expect(stateToUrl({ ...base, scenario: { ...base.scenario, schedule: '' } })).not.toContain('sched=');
    expect(stateToUrl({ ...base, scenario: { kind: 'custom', text: 'x', schedule: '1:0&x=y' } })).toContain('&sched=1:0%26x%3Dy&');
  });

  it('reads a schedule it cannot check as text (the engine names the pick), an empty one as none, and refuses one too long to be one', () => {
    const garbage = urlToState('#v=2&sc=mremap-race-101&sched=4:1,%3Cscript%3E&step=3&t.mremap_flush=dirty');
    expect(garbage.ok && garbage.state?.scenario.schedule).toBe('4:1,<script>');
    expect(garbage.ok && garbage.state?.toggles).toEqual({ mremap_flush: 'dirty' });
    expect(garbage.ok && garbage.state?.step).toBe(3);
    const empty = urlToState('#v=2&sc=mremap-race-101&sched=&step=0');
    expect(empty.ok && empty.state?.scenario.schedule).toBeUndefined();
    const long = urlToState(`#v=2&sc=abc&sched=${'1:0,'.repeat(20_000)}`);
    expect(long.ok).toBe(false);
    expect(!long.ok && long.error).toContain('the schedule (sched=) is longer than 60000 characters');
    // A v1 link never had one.
    expect(urlToState('#v=1&sc=abc&sched=1:0').ok).toBe(false);
  });

  it('refuses a seed that is not a whole number, naming it', () => {
    for (const bad of ['-1', '1.5', 'x', '1e3', '1234567890123456', '']) {
      const r = urlToState(`#v=2&sc=abc&seed=${bad}`);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toContain('the seed (seed=) is not a whole number 0 or larger');
    }
  });

  it('reads an empty fragment as "nothing to restore"', () => {
    expect(urlToState('')).toEqual({ ok: true, state: null, warnings: [] });
    expect(urlToState('#')).toEqual({ ok: true, state: null, warnings: [] });
  });

  it('reads embed mode without a value, and warns about a range that has one end or runs backwards', () => {
    const r = urlToState('#v=2&sc=abc&embed&from=3');
    expect(r.ok && r.state?.embed).toBe(true);
    expect(r.ok && r.state?.range).toBeUndefined();
    expect(r.ok && r.warnings[0]).toMatch(/only one end of the steps/);
    const back = urlToState('#v=2&sc=abc&embed=1&from=9&to=3');
    expect(back.ok && back.warnings[0]).toMatch(/run backwards/);
    expect(urlToState('#v=2&sc=abc&lecture=yes')).toEqual({ ok: false, error: 'This link could not be read: lecture mode (lecture=) is not 1, intro or 0.' });
  });

  it('defaults the step to 0 and warns about unknown parts', () => {
    const r = urlToState('#v=1&sc=abc&utm_source=mail');
    expect(r.ok && r.state?.step).toBe(0);
    expect(r.ok && r.warnings[0]).toContain('"utm_source"');
  });
});

describe('urlToState rejects bad links with readable messages', () => {
  const bad = (fragment: string): string => {
    const r = urlToState(fragment);
    if (r.ok) throw new Error(`accepted ${fragment}`);
    expect(r.error.startsWith('This link could not be read: ')).toBe(true);
    return r.error;
  };

  it('garbled percent-encoding', () => {
    expect(bad('#v=1&s=%%%garbage')).toContain('"s" is not valid percent-encoding');
  });
  it('damaged compressed text', () => {
    expect(bad('#v=1&s=garbage')).toContain('custom scenario (s=) is damaged');
    const good = compressToEncodedURIComponent('hello scenario');
    expect(bad(`#v=1&s=${good.slice(0, -3)}`)).toContain('damaged');
  });
  it('missing, wrong and future versions', () => {
    expect(bad('#sc=abc')).toContain('no format version');
    expect(bad('#v=one&sc=abc')).toContain('"one" is not a number');
    expect(bad('#v=3&sc=abc')).toContain('newer version of mmviz');
    expect(bad('#v=0&sc=abc')).toContain('v=0 is not supported');
  });
  it('hostile values', () => {
    const msg = bad('#v=1&sc=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(msg).toContain('scenario id (sc=) may only contain');
    expect(bad('#v=1&sc=abc&t.numa_delay_map=<script>')).toContain('toggle "numa_delay_map" is not a toggle value');
    expect(bad('#v=1&sc=abc&t.<img>=true')).toContain('not a valid toggle name');
    expect(bad('#v=1&sc=abc&p.pages=1e999')).toContain('not a finite number');
    expect(bad('#v=1&sc=abc&p.pages=0x10')).toContain('is not a number');
  });
  it('bad step, selection, duplicates and conflicts', () => {
    expect(bad('#v=1&sc=abc&step=-1')).toContain('step (step=) is not a whole number');
    expect(bad('#v=1&sc=abc&step=1.5')).toContain('step (step=)');
    expect(bad('#v=1&sc=abc&sel=nowhere')).toContain('selection (sel=)');
    expect(bad('#v=1&sc=abc&step=1&step=2')).toContain('"step" appears twice');
    expect(bad('#v=1&sc=abc&s=' + compressToEncodedURIComponent('x'))).toContain('both a built-in scenario');
    expect(bad('#v=1&step=3')).toContain('names no scenario');
    expect(bad('#v=1&sc=abc&' + 'x'.repeat(300_000))).toContain('too long');
  });
  it('reports several problems at once', () => {
    const msg = bad('#v=1&sc=A!&step=x');
    expect(msg).toContain('scenario id');
    expect(msg).toContain('step');
  });
});

describe('upgrader hook', () => {
  it('upgrades an old link through registered upgraders', () => {
    const upgraders = {
      0: (pairs: Map<string, string>) => {
        const out = new Map(pairs);
        const scenario = out.get('scenario');
        out.delete('scenario');
        if (scenario) out.set('sc', scenario);
        return out;
      },
    };
    const r = urlToState('#v=0&scenario=numa-hint-fault-101&step=4', { ...upgraders, 1: (p: Map<string, string>) => p });
    expect(r).toEqual({
      ok: true,
      state: { ...base, scenario: { kind: 'builtin', id: 'numa-hint-fault-101', hash: null }, step: 4 },
      warnings: [],
    });
    expect(upgradePairs(1, new Map([['v', '1']])).get('v')).toBe('2');
  });
});

describe('golden links of every released format', () => {
  it.each(golden.links.map((l) => [`v${l.format}: ${l.fragment}`, l] as const))('%s still opens what it opened', (_name, link) => {
    const read = urlToState(`#${link.fragment}`);
    expect(read).toEqual({ ok: true, state: link.state, warnings: [] });
    // Written again, it is a link of today's format that reads back the same.
    if (!read.ok || !read.state) throw new Error('no state');
    const again = urlToState(`#${stateToUrl(read.state)}`);
    expect(again).toEqual({ ok: true, state: link.state, warnings: [] });
  });

  it('has links of every format up to today\'s', () => {
    for (let v = 1; v <= URL_FORMAT_VERSION; v++) expect(golden.links.some((l) => l.format === v)).toBe(true);
  });

  it('refuses a v1 link with a key only v2 has (it was not made by mmviz)', () => {
    const r = urlToState('#v=1&sc=abc&ab=t.numa_delay_map:false,true');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('v=1 link with "ab"');
  });
});

describe('a renamed toggle id', () => {
  // mremap_latency_limit's on was the kernel before 37a4094e828f; mremap_pmd_extents' on is the patch.
  const mremap = { kind: 'builtin', id: 'mremap-2mb', hash: '0badf00d' } as const;

  it.each([
    ['true', false],
    ['on', false],
    ['false', true],
    ['off', true],
  ] as const)('t.mremap_latency_limit=%s opens as mremap_pmd_extents=%s, in v1 and v2 links', (old, now) => {
    for (const v of [1, 2]) {
      const r = urlToState(`#v=${v}&sc=mremap-2mb&h=0badf00d&t.mremap_latency_limit=${old}&step=7`);
      expect(r).toEqual({ ok: true, state: { ...base, scenario: mremap, toggles: { mremap_pmd_extents: now }, step: 7 }, warnings: [] });
    }
  });

  it('is rewritten in an A/B comparison, values and all, and written back under the new id', () => {
    const r = urlToState('#v=2&sc=mremap-2mb&h=0badf00d&step=0&ab=t.mremap_latency_limit:on,off');
    expect(r.ok && r.state?.ab).toEqual({ kind: 'toggle', id: 'mremap_pmd_extents', a: false, b: true });
    if (!r.ok || !r.state) throw new Error('no state');
    expect(stateToUrl(r.state)).toContain('ab=t.mremap_pmd_extents:false,true');
    expect(stateToUrl(r.state)).not.toContain('latency_limit');
  });

  it('refuses a value that is not on/off, and a link naming both ids, saying which', () => {
    const bad = urlToState('#v=2&sc=mremap-2mb&t.mremap_latency_limit=sometimes&step=0');
    expect(bad).toEqual({ ok: false, error: 'This link could not be read: the value "sometimes" of toggle "mremap_latency_limit" is not on/off.' });
    const both = urlToState('#v=2&sc=mremap-2mb&t.mremap_latency_limit=true&t.mremap_pmd_extents=true&step=0');
    expect(both.ok).toBe(false);
    if (!both.ok) expect(both.error).toContain('"mremap_latency_limit" and its new name "mremap_pmd_extents"');
  });

  it('names only ids the engine has, never a registry id', () => {
    const ids = new Set(engineFixture.patches.map((p) => p.id));
    for (const [old, to] of Object.entries(RENAMED_TOGGLES)) {
      expect(ids.has(old)).toBe(false);
      expect(ids.has(to.id)).toBe(true);
    }
  });
});

describe('link length', () => {
  it('a built-in scenario gives a link under 2,000 characters with every toggle, param, A/B, selection and plot set', () => {
    const patches = engineFixture.patches;
    const toggles = Object.fromEntries(patches.map((p) => [p.id, p.values[p.values.length - 1] as string | boolean]));
    // Longer than any scenario's: 16 params with 24-character names and 15-digit values, a 64-character id.
    const params = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`a_parameter_name_of_24_${i.toString(36)}`.slice(0, 24), 123456789012345]));
    const longest = [...patches].sort((a, b) => b.id.length - a.id.length)[0]!;
    const state: ShareState = {
      scenario: { kind: 'builtin', id: 'x'.repeat(64), hash: '0a1b2c3d' },
      toggles,
      params,
      step: 987_654_321,
      selection: { panel: 'pagetable', object: 'pte-65535-4294967295' },
      ab: { kind: 'toggle', id: longest.id, a: longest.values[0]!, b: longest.values[longest.values.length - 1]! },
      bStep: 987_654_321,
      plots: { counters: Array.from({ length: 8 }, (_, i) => `nr_tlb_remote_flush_received_${i}`), rate: true },
    };
    const link = `https://example.org/mmviz/#${stateToUrl(state)}`;
    expect(link.length).toBeLessThan(2000);
  });
});

describe('A/B and plot parts of a link', () => {
  const bad = (fragment: string): string => {
    const r = urlToState(fragment);
    if (r.ok) throw new Error(`accepted ${fragment}`);
    return r.error;
  };
  it('reads three runs as A/B of the first two, with a warning', () => {
    const r = urlToState('#v=2&sc=mremap-2mb&ab=t.mremap_flush:deferred,dirty,present');
    expect(r.ok && r.state?.ab).toEqual({ kind: 'toggle', id: 'mremap_flush', a: 'deferred', b: 'dirty' });
    expect(r.ok && r.warnings.join(' ')).toMatch(/compares 3 runs \(deferred, dirty, present\).*A = deferred and B = dirty/);
  });
  it('refuses a malformed comparison, naming what is wrong', () => {
    expect(bad('#v=2&sc=abc&ab=numa_delay_map')).toContain('not of the form what:A,B');
    expect(bad('#v=2&sc=abc&ab=t.numa_delay_map:false')).toContain('does not name two runs');
    expect(bad('#v=2&sc=abc&ab=t.<b>:1,2')).toContain('not a valid toggle name');
    expect(bad('#v=2&sc=abc&ab=k:5.12,v5.13')).toContain('not a kernel version like v5.13');
    expect(bad('#v=2&sc=abc&ab=p:base,patch7')).toContain('not a preset like page_alloc/patch7');
    expect(bad('#v=2&sc=abc&ab=x:a,b')).toContain('none of t.<toggle>, k (kernels) or p (presets)');
    expect(bad('#v=2&sc=abc&pc=a;b')).toContain('plotted counters (pc=)');
    expect(bad('#v=2&sc=abc&rate=yes')).toContain("rate flag (rate=)");
  });
  it('ignores B\'s step without a comparison, with a warning', () => {
    const r = urlToState('#v=2&sc=abc&bstep=4');
    expect(r.ok && r.state?.ab).toBeUndefined();
    expect(r.ok && r.warnings[0]).toContain('bstep=');
  });
});

describe('quoteForMessage', () => {
  it('truncates and strips control characters', () => {
    expect(quoteForMessage('a\nb')).toBe('"a?b"');
    expect(quoteForMessage('x'.repeat(50))).toBe(`"${'x'.repeat(40)}…"`);
  });
});
