import { describe, expect, it } from 'vitest';
import type { NodeZone } from '../engine/types';
import { crowdedNodes, pagesetSource, pcpKnobsSet, zonesPages } from './zones';

const ZONE: NodeZone = {
  node: 0,
  zones: ['DMA', 'DMA32', 'Normal'],
  managed: 1_015_248,
  wmarks: [11_197, 13_995, 16_793],
  sim_managed: 31_726,
  sim_wmarks: [349, 437, 524],
  pageset_zone: 'Normal',
  batch: 63,
  high_min: 1_764,
  high_max: 15_863,
  high_max_pasted: false,
  pcp_share: 22,
};

describe('zones', () => {
  it('finds the pageset knobs a scenario sets in [knobs], not elsewhere or inside strings', () => {
    const text = `format = 1
description = """
[knobs]
pcp_high_min = 3
"""
[knobs]
pcp_batch = 63 # the test box
window_ms = 10
percpu_pagelist_high_fraction = 0
[machine]
pcp_high_max = 1
`;
    expect(pcpKnobsSet(text)).toEqual([{ name: 'pcp_batch', value: '63' }]);
    expect(pcpKnobsSet('[knobs]\r\npcp_high_max = 9\r\npercpu_pagelist_high_fraction = 8\r\n')).toEqual([
      { name: 'pcp_high_max', value: '9' },
      { name: 'percpu_pagelist_high_fraction', value: '8' },
    ]);
    expect(pcpKnobsSet('')).toEqual([]);
  });

  it('says where each pageset size comes from', () => {
    expect(pagesetSource(ZONE, 'batch', [])).toEqual({ value: 63, source: 'pasted' });
    expect(pagesetSource(ZONE, 'high_max', [])).toEqual({ value: 15_863, source: 'derived from the pasted zone' });
    expect(pagesetSource({ ...ZONE, high_max_pasted: true }, 'high_max', [])).toEqual({ value: 15_863, source: 'pasted' });
    expect(pagesetSource({ ...ZONE, batch: null }, 'batch', [])).toEqual({ value: null, source: 'model' });
    expect(pagesetSource(ZONE, 'batch', [{ name: 'pcp_batch', value: '"$b"' }])).toEqual({ value: '"$b"', source: 'knob' });
    const fraction = [{ name: 'percpu_pagelist_high_fraction', value: '8' }];
    expect(pagesetSource(ZONE, 'high_min', fraction)).toEqual({ value: null, source: 'knob' });
    expect(pagesetSource(ZONE, 'batch', fraction).source).toBe('pasted');
  });

  it('adds up the simulated pages and names crowded nodes', () => {
    expect(zonesPages([ZONE, { ...ZONE, node: 1, sim_managed: 31_880, pcp_share: 44 }])).toBe(63_606);
    expect(crowdedNodes([ZONE, { ...ZONE, node: 1, pcp_share: 44 }]).map((z) => z.node)).toEqual([1]);
  });
});
