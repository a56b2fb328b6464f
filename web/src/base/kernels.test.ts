import { describe, expect, it } from 'vitest';
import type { PatchInfo, PresetInfo } from '../engine/types';
import { testMechanism } from '../engine/testMechanisms';
import {
  formatHistory,
  historySteps,
  kernelOptions,
  matchingKernel,
  matchingPreset,
  presetChoices,
  presetToggles,
  previousVersion,
  unmergedValues,
  versionsToAsk,
  type KernelInfo,
} from './kernels';

const patch = (over: Partial<PatchInfo>): PatchInfo => ({
  id: 'numa_delay_map',
  kind: 'bool',
  title: 't',
  author: 'a',
  date: 'd',
  commit: 'b99a342d4f11',
  version: 'v5.13',
  link: '',
  explanation: '',
  functions: [],
  values: [false, true],
  default: true,
  valueLabels: ['off', 'on'],
  listings: [],
  history: [],
  ...over,
});

// As the engine gives them today: v4.17 (numa_skip_dirty_file) and v5.13 (numa_delay_map, tlb_flush_multi).
const KERNELS: KernelInfo[] = [
  { version: 'v4.16', toggles: { numa_delay_map: false, numa_skip_dirty_file: false, tlb_flush_multi: false } },
  { version: 'v4.17', toggles: { numa_delay_map: false, numa_skip_dirty_file: true, tlb_flush_multi: false } },
  { version: 'v5.13', toggles: { numa_delay_map: true, numa_skip_dirty_file: true, tlb_flush_multi: true } },
];

describe('kernel versions', () => {
  it('knows the release before each one, across major versions', () => {
    expect(previousVersion('v5.13')).toBe('v5.12');
    expect(previousVersion('v5.0')).toBe('v4.20');
    expect(previousVersion('v6.0')).toBe('v5.19');
    expect(previousVersion('v4.0')).toBe('v3.19');
    expect(previousVersion('v3.0')).toBeNull();
    expect(previousVersion('not merged')).toBeNull();
  });

  it('asks for the release before the first version too', () => {
    expect(versionsToAsk(['v4.17', 'v5.13'])).toEqual(['v4.16', 'v4.17', 'v5.13']);
    expect(versionsToAsk([])).toEqual([]);
  });

  it('labels each kernel with the releases that behave alike', () => {
    expect(kernelOptions(KERNELS, ['v4.17', 'v5.13'])).toEqual([
      { version: 'v4.16', label: 'v4.16 and older' },
      { version: 'v4.17', label: 'v4.17 – v5.12' },
      { version: 'v5.13', label: 'v5.13 and later' },
    ]);
    expect(kernelOptions([{ version: 'v5.12', toggles: {} }, { version: 'v5.13', toggles: {} }], ['v5.12', 'v5.13'])[0]?.label).toBe('v5.12');
  });

  it('shows the latest version whose toggles all equal the current ones, else custom', () => {
    expect(matchingKernel(KERNELS, { numa_delay_map: false, numa_skip_dirty_file: true, tlb_flush_multi: false, other: 'x' })).toBe('v4.17');
    expect(matchingKernel(KERNELS, { numa_delay_map: true, numa_skip_dirty_file: true, tlb_flush_multi: true })).toBe('v5.13');
    // One toggle changed afterwards: custom.
    expect(matchingKernel(KERNELS, { numa_delay_map: true, numa_skip_dirty_file: true, tlb_flush_multi: false })).toBeNull();
    // Two versions with the same toggles: the latest.
    expect(matchingKernel([...KERNELS, { version: 'v6.1', toggles: { numa_delay_map: true } }], { numa_delay_map: true, numa_skip_dirty_file: true, tlb_flush_multi: true })).toBe('v6.1');
  });
});

describe('named presets', () => {
  const base: PresetInfo = { name: 'base', doc: 'the v4.8 base', kernel: 'v4.8', toggles: [['numa_delay_map', false], ['pcp_batch', 'deferred']] };
  const patch1: PresetInfo = { name: 'patch1', doc: 'patch 1 of the series', kernel: 'v4.8', toggles: [['numa_delay_map', false], ['pcp_batch', 'dirty']] };
  const mechanisms = [testMechanism('core'), testMechanism('pcp', { presets: [base, patch1] })];

  it('lists every mechanism’s presets, none when no mechanism declares one', () => {
    expect(presetChoices(mechanisms).map((c) => c.key)).toEqual(['pcp/base', 'pcp/patch1']);
    expect(presetChoices([testMechanism('core')])).toEqual([]);
  });

  it('applies a preset as one set of toggles and recognises it afterwards', () => {
    expect(presetToggles(patch1)).toEqual({ numa_delay_map: false, pcp_batch: 'dirty' });
    const choices = presetChoices(mechanisms);
    expect(matchingPreset(choices, { numa_delay_map: false, pcp_batch: 'dirty', other: true })).toBe('pcp/patch1');
    expect(matchingPreset(choices, { numa_delay_map: true, pcp_batch: 'dirty' })).toBeNull();
  });
});

describe('toggle history', () => {
  it('a bool without history: off before its version, on from it', () => {
    expect(formatHistory(patch({}))).toBe('off before v5.13, on from v5.13');
    expect(historySteps(patch({}))).toEqual([
      { from: '', value: 'off' },
      { from: 'v5.13', value: 'on' },
    ]);
  });

  it('an enum with its history, and values never merged', () => {
    const p = patch({
      id: 'pcp_batch',
      kind: 'enum',
      values: ['deferred', 'dirty', 'present', 'proposal'],
      valueLabels: ['d', 'di', 'p', 'pr'],
      history: [
        ['', 'deferred'],
        ['v4.9', 'dirty'],
        ['v4.19', 'present'],
      ],
    });
    expect(formatHistory(p)).toBe('deferred before v4.9 · v4.9 dirty · v4.19 present · proposal: never merged');
    expect(unmergedValues(p)).toEqual(['proposal']);
  });

  it('an inverted bool (on is the old behaviour)', () => {
    expect(
      formatHistory(
        patch({
          history: [
            ['', 'on'],
            ['v4.18', 'off'],
          ],
        }),
      ),
    ).toBe('on before v4.18 · v4.18 off');
  });

  it('a patch never merged', () => {
    const p = patch({ version: 'not merged', commit: 'not merged' });
    expect(formatHistory(p)).toBe('never merged (every mainline kernel has it off)');
    expect(unmergedValues(p)).toEqual(['on']);
  });
});
