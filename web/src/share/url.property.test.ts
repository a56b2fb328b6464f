// Property test: any state a link can hold comes back from its link unchanged (fast-check
// generates the states; a failure prints the smallest one it finds).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PANELS, stateToUrl, urlToState, type AbChoice, type ShareState } from './url';

const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,23}$/);
const toggleValue = fc.oneof(fc.boolean(), ident);
// Params as the lab has them: whole numbers, and fractions such as 2.5 or -0.125.
const param = fc.oneof(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 8));
const seed = fc.option(fc.nat({ max: 2 ** 31 - 1 }), { nil: undefined });

const scenario = fc.oneof(
  fc.record({ kind: fc.constant('builtin' as const), id: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/), hash: fc.option(fc.stringMatching(/^[0-9a-f]{8}$/), { nil: null }), seed }),
  fc.record({ kind: fc.constant('custom' as const), text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 400 }), seed }),
);

const ab: fc.Arbitrary<AbChoice> = fc.oneof(
  fc.record({ kind: fc.constant('toggle' as const), id: ident, a: toggleValue, b: toggleValue }),
  fc.record({ kind: fc.constant('kernel' as const), a: fc.stringMatching(/^v[1-9]\.[0-9]{1,2}$/), b: fc.stringMatching(/^v[1-9]\.[0-9]{1,2}$/) }),
  fc.record({ kind: fc.constant('preset' as const), a: fc.stringMatching(/^[a-z_]{1,12}\/[a-z0-9_]{1,12}$/), b: fc.stringMatching(/^[a-z_]{1,12}\/[a-z0-9_]{1,12}$/) }),
);

const state: fc.Arbitrary<ShareState> = fc
  .record({
    scenario,
    toggles: fc.dictionary(ident, toggleValue, { maxKeys: 6 }),
    params: fc.dictionary(ident, param, { maxKeys: 6 }),
    // Links read steps of up to 15 digits (url.ts), far beyond any run.
    step: fc.nat({ max: 999_999_999_999_999 }),
    selection: fc.option(fc.record({ panel: fc.constantFrom(...PANELS), object: fc.stringMatching(/^[a-z]+(-[0-9]{1,6}){1,2}$/) }), { nil: null }),
    ab: fc.option(ab, { nil: undefined }),
    bStep: fc.option(fc.nat({ max: 1_000_000_000 }), { nil: null }),
    plots: fc.option(fc.record({ counters: fc.option(fc.uniqueArray(ident, { minLength: 1, maxLength: 5 }), { nil: null }), rate: fc.boolean() }), { nil: undefined }),
  })
  .map((s) => {
    // B's step exists only in a comparison; seed only when set; the default plot layout is no key.
    const out: ShareState = { scenario: s.scenario, toggles: s.toggles, params: s.params, step: s.step, selection: s.selection };
    if (s.scenario.seed === undefined) delete out.scenario.seed;
    if (s.ab) {
      out.ab = s.ab;
      out.bStep = s.bStep;
    }
    if (s.plots && (s.plots.counters !== null || s.plots.rate)) out.plots = s.plots;
    return out;
  });

describe('links: any state comes back from its link', () => {
  it('stateToUrl then urlToState is the identity, and the link is stable', () => {
    fc.assert(
      fc.property(state, (s) => {
        const fragment = stateToUrl(s);
        const back = urlToState(`#${fragment}`);
        expect(back.ok).toBe(true);
        if (!back.ok || !back.state) return;
        expect(back.warnings).toEqual([]);
        expect(stateToUrl(back.state)).toBe(fragment);
        expect(back.state.scenario).toEqual(s.scenario);
        expect(back.state.toggles).toEqual(s.toggles);
        expect(back.state.params).toEqual(s.params);
        expect(back.state.step).toBe(s.step);
        expect(back.state.selection).toEqual(s.selection);
        expect(back.state.ab ?? null).toEqual(s.ab ?? null);
      }),
      { numRuns: 400, seed: 20261127 },
    );
  });
});
