import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import { quoteForMessage, stateToUrl, upgradePairs, urlToState, type ShareState } from './url';

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
  ['lecture mode at a step', { ...base, step: 34, lecture: 'on' }],
  ['lecture mode on its first slide', { ...base, lecture: 'intro' }],
  ['an embed of some steps', { ...base, step: 20, embed: true, range: { from: 16, to: 40 } }],
];

describe('stateToUrl / urlToState round trip', () => {
  it.each(cases)('%s', (_name, state) => {
    const fragment = stateToUrl(state);
    expect(fragment.startsWith('v=1&')).toBe(true);
    const back = urlToState(`#${fragment}`);
    expect(back).toEqual({ ok: true, state, warnings: [] });
  });

  it('is stable: the same state always gives the same fragment, sorted', () => {
    const a = stateToUrl({ ...base, toggles: { b: true, a: false }, params: { z: 1, y: 2 } });
    const b = stateToUrl({ ...base, toggles: { a: false, b: true }, params: { y: 2, z: 1 } });
    expect(a).toBe(b);
    expect(a).toBe('v=1&sc=numa-hint-fault-101&h=0a1b2c3d&t.a=false&t.b=true&p.y=2&p.z=1&step=0');
  });

  it('reads an empty fragment as "nothing to restore"', () => {
    expect(urlToState('')).toEqual({ ok: true, state: null, warnings: [] });
    expect(urlToState('#')).toEqual({ ok: true, state: null, warnings: [] });
  });

  it('reads embed mode without a value, and warns about a range that has one end or runs backwards', () => {
    const r = urlToState('#v=1&sc=abc&embed&from=3');
    expect(r.ok && r.state?.embed).toBe(true);
    expect(r.ok && r.state?.range).toBeUndefined();
    expect(r.ok && r.warnings[0]).toMatch(/only one end of the steps/);
    const back = urlToState('#v=1&sc=abc&embed=1&from=9&to=3');
    expect(back.ok && back.warnings[0]).toMatch(/run backwards/);
    expect(urlToState('#v=1&sc=abc&lecture=yes')).toEqual({ ok: false, error: 'This link could not be read: lecture mode (lecture=) is not 1, intro or 0.' });
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
    expect(bad('#v=2&sc=abc')).toContain('newer version of mmviz');
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
    const r = urlToState('#v=0&scenario=numa-hint-fault-101&step=4', upgraders);
    expect(r).toEqual({
      ok: true,
      state: { ...base, scenario: { kind: 'builtin', id: 'numa-hint-fault-101', hash: null }, step: 4 },
      warnings: [],
    });
    expect(upgradePairs(1, new Map([['v', '1']])).get('v')).toBe('1');
  });
});

describe('quoteForMessage', () => {
  it('truncates and strips control characters', () => {
    expect(quoteForMessage('a\nb')).toBe('"a?b"');
    expect(quoteForMessage('x'.repeat(50))).toBe(`"${'x'.repeat(40)}…"`);
  });
});
