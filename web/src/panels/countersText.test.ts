import { describe, expect, it } from 'vitest';
import { countersAsText } from './countersText';

describe('countersAsText', () => {
  it('formats an aligned table with deltas and a heading', () => {
    const text = countersAsText({
      heading: ['mmviz: numa-hint-fault-101, numa_delay_map=on, step 10 / 412'],
      names: ['numa_hint_faults', 'nr_tlb_remote_flush_received', 'pgmigrate_success'],
      values: { numa_hint_faults: 3, nr_tlb_remote_flush_received: 1024 },
      deltas: { numa_hint_faults: 1, pgmigrate_success: -2 },
    });
    expect(text).toBe(
      [
        'mmviz: numa-hint-fault-101, numa_delay_map=on, step 10 / 412',
        '',
        'counter                       value  this step',
        '----------------------------  -----  ---------',
        'numa_hint_faults                  3         +1',
        'nr_tlb_remote_flush_received   1024          0',
        'pgmigrate_success                 0         -2',
        '',
      ].join('\n'),
    );
    for (const line of text.split('\n')) expect(line).not.toMatch(/\s$/);
  });
});
