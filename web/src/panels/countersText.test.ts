import { describe, expect, it } from 'vitest';
import { runReportText, TEXT_COLUMNS, wrapText } from './countersText';

describe('wrapText', () => {
  it('breaks at spaces within the width, keeps leading space and indents the rest', () => {
    expect(wrapText('  aaa bbb ccc', 9, '    ')).toEqual(['  aaa bbb', '    ccc']);
    expect(wrapText('one', 72)).toEqual(['one']);
    expect(wrapText('', 72)).toEqual(['']);
  });
  it('cuts a word wider than the line', () => {
    const lines = wrapText('x'.repeat(30), 12, '  ');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(12);
    expect(lines.join('').replace(/ /g, '')).toBe('x'.repeat(30));
  });
});

describe('runReportText', () => {
  const link = `https://example.org/mmviz/#v=2&sc=numa-hint-fault-101&h=5d0c4a91&${'t.numa_delay_map=true&'.repeat(3)}step=37`;
  const toggles = [
    { id: 'numa_delay_map', a: true, commit: 'b99a342d4f11', version: 'v5.13' },
    { id: 'mremap_flush', a: 'present', commit: '5d1904204c99 (v4.9), not merged (2018), eb66ae030829 (v4.19)', version: 'v4.9 / unmerged / v4.19' },
  ];

  it('one run: only the counters that moved, how many are left out, the link and each toggle with its commit', () => {
    const text = runReportText({
      about: ['mmviz numa-hint-fault-101: ' + 'a long title that must be wrapped at seventy-two columns '.repeat(2)],
      counters: {
        kind: 'one',
        names: ['numa_hint_faults', 'numa_pages_migrated', 'pgmigrate_success', 'nr_tlb_remote_flush'],
        values: { numa_hint_faults: 3, pgmigrate_success: 0 },
        deltas: { pgmigrate_success: -2 },
      },
      link,
      toggles,
    });
    const lines = text.split('\n');
    expect(lines).toContain(link);
    for (const line of lines) {
      if (line !== link) expect(line.length, line).toBeLessThanOrEqual(TEXT_COLUMNS);
      expect(line).not.toMatch(/\s$/);
    }
    expect(text).toContain('numa_hint_faults');
    expect(text).toContain('pgmigrate_success');
    expect(text).not.toContain('numa_pages_migrated');
    expect(text).not.toContain('nr_tlb_remote_flush ');
    expect(text).toContain('(2 more counters at 0: not shown)');
    expect(text).toContain('  numa_delay_map = on: b99a342d4f11 (v5.13)');
    // A commit list that names its own releases is not given the version again, and wraps.
    expect(text).toContain('  mremap_flush = present: 5d1904204c99 (v4.9), not merged (2018),');
    expect(text).not.toContain('(v4.9 / unmerged / v4.19)');
  });

  it('A/B: both values, the change in per cent, both toggle values', () => {
    const text = runReportText({
      about: ['mmviz numa-hint-fault-101: NUMA hint faults', 'A/B: numa_delay_map: off vs on.'],
      counters: { kind: 'ab', names: ['a', 'b', 'c'], a: { a: 200, b: 0 }, b: { a: 150, b: 4 } },
      link,
      toggles: [{ id: 'numa_delay_map', a: false, b: true, commit: 'b99a342d4f11', version: 'v5.13' }],
    });
    expect(text).toMatch(/^a +200 +150 +-25\.00%$/m);
    expect(text).toMatch(/^b +0 +4 +new$/m);
    expect(text).toContain('(1 more counter at 0 in both runs: not shown)');
    expect(text).toContain('  numa_delay_map = off / on: b99a342d4f11 (v5.13)');
    expect(text).toContain('Toggles (A / B) and their upstream commits:');
  });

  it('a table too wide for 72 columns puts each row’s numbers under its name', () => {
    const name = 'a_counter_name_that_is_far_too_long_for_any_table_row';
    const text = runReportText({
      about: ['x'],
      counters: { kind: 'ab', names: [name], a: { [name]: 123456789012 }, b: { [name]: 234567890123 } },
      link,
      toggles: [],
    });
    for (const line of text.split('\n')) if (line !== link) expect(line.length, line).toBeLessThanOrEqual(TEXT_COLUMNS);
    expect(text).toContain(name);
    expect(text).toMatch(/123456789012 +234567890123 +\+90\.00%/);
  });
});
