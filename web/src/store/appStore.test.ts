import { describe, expect, it } from 'vitest';
import { fnv1a32Hex } from '../base/hash';
import { createFakeEngine, FAKE_SCENARIOS } from '../engine/fakeEngine';
import { stateToUrl } from '../share/url';
import { createAppStore, selectShareState } from './appStore';
import { chapterIndexAt, chapterTarget, clampStep } from './simSlice';

const fake101 = FAKE_SCENARIOS[0]!;

function booted(fragment = '') {
  const store = createAppStore();
  store.getState().boot(createFakeEngine(), fragment);
  return store;
}

describe('app store with the fake engine', () => {
  it('opens the first built-in scenario when the default is absent', () => {
    const s = booted().getState();
    expect(s.summary?.id).toBe('fake-101');
    expect(s.step).toBe(0);
    expect(s.frame?.step).toBe(0);
    expect(s.events).toHaveLength(s.summary?.totalSteps ?? -1);
    expect(s.messages).toEqual([]);
  });

  it('steps forward, back, seeks and clamps', () => {
    const store = booted();
    const total = store.getState().summary!.totalSteps;
    for (let i = 0; i < 10; i++) store.getState().stepBy(1);
    expect(store.getState().step).toBe(10);
    store.getState().stepBy(-1);
    expect(store.getState().step).toBe(9);
    expect(store.getState().frame?.step).toBe(9);
    store.getState().seek(total + 50);
    expect(store.getState().step).toBe(total);
    store.getState().stepBy(1);
    expect(store.getState().step).toBe(total);
    store.getState().goFirst();
    store.getState().stepBy(-1);
    expect(store.getState().step).toBe(0);
    store.getState().goLast();
    expect(store.getState().step).toBe(total);
  });

  it('rebuilds on toggle at the same step and counters change', () => {
    const store = booted();
    store.getState().goLast();
    const off = store.getState().frame!.counters.nr_tlb_remote_flush_received!;
    store.getState().seek(8);
    store.getState().setToggle('numa_delay_map', true);
    expect(store.getState().step).toBe(8);
    expect(store.getState().summary?.toggles.numa_delay_map).toBe(true);
    expect(store.getState().toggleOverrides).toEqual({ numa_delay_map: true });
    expect(store.getState().comparison?.reason).toBe('numa_delay_map off → on');
    store.getState().goLast();
    expect(store.getState().frame!.counters.nr_tlb_remote_flush_received!).toBeLessThan(off);
    // Back to the default removes the override.
    store.getState().setToggle('numa_delay_map', false);
    expect(store.getState().toggleOverrides).toEqual({});
    // The step is clamped when the run gets shorter.
    store.getState().goLast();
    const longTotal = store.getState().step;
    store.getState().setToggle('numa_delay_map', true);
    expect(store.getState().step).toBe(store.getState().summary!.totalSteps);
    expect(store.getState().step).toBeLessThan(longTotal);
  });

  it('applies params in range and refuses out-of-range ones', () => {
    const store = booted();
    expect(store.getState().setParam('pages', 5)).toBe(true);
    expect(store.getState().paramOverrides).toEqual({ pages: 5 });
    expect(store.getState().summary?.params[0]?.value).toBe(5);
    expect(store.getState().setParam('pages', 99)).toBe(false);
    expect(store.getState().summary?.params[0]?.value).toBe(5);
  });

  it('navigates chapters and plays to the end', () => {
    const store = booted();
    const chapters = store.getState().summary!.chapters;
    store.getState().goChapter(1);
    expect(store.getState().step).toBe(chapters[1]!.step);
    store.getState().stepBy(1);
    store.getState().goChapter(-1);
    expect(store.getState().step).toBe(chapters[1]!.step);
    store.getState().goChapter(-1);
    expect(store.getState().step).toBe(0);
    store.getState().play();
    expect(store.getState().playing).toBe(true);
    for (let i = 0; i < 200; i++) store.getState().tick();
    expect(store.getState().playing).toBe(false);
    expect(store.getState().step).toBe(store.getState().summary!.totalSteps);
  });

  it('round-trips through the URL', () => {
    const store = booted();
    store.getState().setToggle('numa_delay_map', true);
    store.getState().setParam('pages', 4);
    store.getState().seek(7);
    store.getState().select({ panel: 'machine', object: 'pfn-9' });
    const share = selectShareState(store.getState())!;
    expect(share.scenario).toEqual({ kind: 'builtin', id: 'fake-101', hash: fnv1a32Hex(fake101.text) });
    const again = booted(`#${stateToUrl(share)}`);
    const s = again.getState();
    expect(s.step).toBe(7);
    expect(s.summary?.toggles.numa_delay_map).toBe(true);
    expect(s.paramOverrides).toEqual({ pages: 4 });
    expect(s.selection).toEqual({ panel: 'machine', object: 'pfn-9' });
    expect(s.messages).toEqual([]);
    expect(selectShareState(s)).toEqual(share);
  });

  it('reports a garbled link and opens the default scenario, still usable', () => {
    const store = booted('#v=1&s=%%%garbage');
    const s = store.getState();
    expect(s.messages[0]?.message).toMatch(/^This link could not be read: /);
    expect(s.summary?.id).toBe('fake-101');
    s.stepBy(1);
    expect(store.getState().step).toBe(1);
  });

  it('clamps a step beyond the end with a message', () => {
    const store = booted('#v=1&sc=fake-101&step=9999');
    const s = store.getState();
    const total = s.summary!.totalSteps;
    expect(s.step).toBe(total);
    expect(s.messages.map((m) => m.message)).toContain(
      `step 9999 is beyond the end of this scenario (${total} steps); showing the last step`,
    );
  });

  it('warns about a changed built-in scenario, unknown scenario, toggles and params', () => {
    expect(booted('#v=1&sc=fake-101&h=00000000').getState().messages[0]?.message).toContain('has changed since this link was made');
    const unknown = booted('#v=1&sc=nope').getState();
    expect(unknown.messages[0]?.message).toContain('"nope"');
    expect(unknown.summary?.id).toBe('fake-101');
    const bad = booted('#v=1&sc=fake-101&t.nope=true&t.numa_delay_map=maybe&p.pages=99&step=2').getState();
    expect(bad.messages.map((m) => m.message).join('\n')).toMatch(/unknown toggle "nope"[\s\S]*cannot be "maybe"[\s\S]*outside 1–6/);
    expect(bad.step).toBe(2);
  });

  it('reports engine errors for a broken custom scenario and falls back', () => {
    const s = booted(`#${stateToUrl({ scenario: { kind: 'custom', text: 'id = "x"\nwhat = 1' }, toggles: {}, params: {}, step: 0, selection: null })}`).getState();
    expect(s.messages[0]?.message).toBe('The scenario could not be loaded: scenario line 2: unknown field "what"');
    expect(s.summary?.id).toBe('fake-101');
  });

  it('opens a custom scenario from a link', () => {
    const text = 'id = "mine"\ntitle = "Mine ✓"\npages = 2\n';
    const s = booted(`#${stateToUrl({ scenario: { kind: 'custom', text }, toggles: {}, params: {}, step: 3, selection: null })}`).getState();
    expect(s.summary?.title).toBe('Mine ✓');
    expect(s.step).toBe(3);
    expect(selectShareState(s)?.scenario).toEqual({ kind: 'custom', text });
  });
});

describe('step helpers', () => {
  it('clamps and finds chapters', () => {
    expect(clampStep(-3, 10)).toBe(0);
    expect(clampStep(12.7, 10)).toBe(10);
    expect(clampStep(Number.NaN, 10)).toBe(0);
    const chapters = [{ step: 0 }, { step: 5 }, { step: 9 }];
    expect(chapterIndexAt(chapters, 4)).toBe(0);
    expect(chapterIndexAt(chapters, 5)).toBe(1);
    expect(chapterIndexAt([], 5)).toBe(-1);
    expect(chapterTarget(chapters, 5, 1)).toBe(9);
    expect(chapterTarget(chapters, 9, 1)).toBeNull();
    expect(chapterTarget(chapters, 6, -1)).toBe(5);
    expect(chapterTarget(chapters, 0, -1)).toBeNull();
  });
});
