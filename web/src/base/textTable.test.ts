import { describe, expect, it } from 'vitest';
import { formatTextTable, padCells, textWidthCells } from './textTable';

describe('formatTextTable', () => {
  it('aligns columns left and right and trims trailing spaces', () => {
    const text = formatTextTable(
      [
        { header: 'counter', align: 'left' },
        { header: 'value', align: 'right' },
      ],
      [
        ['numa_hint_faults', '3'],
        ['nr_tlb_remote_flush', '12'],
      ],
    );
    expect(text).toBe(
      [
        'counter              value',
        '-------------------  -----',
        'numa_hint_faults         3',
        'nr_tlb_remote_flush     12',
      ].join('\n'),
    );
  });
  it('handles empty rows and missing cells', () => {
    const text = formatTextTable([{ header: 'a', align: 'left' }, { header: 'bb', align: 'left' }], [['x']]);
    expect(text.split('\n')).toEqual(['a  bb', '-  --', 'x']);
  });
  it('counts code points, not UTF-16 units', () => {
    expect(textWidthCells('µs')).toBe(2);
    expect(textWidthCells('𝔸')).toBe(1);
    expect(padCells('𝔸', 3, 'right')).toBe('  𝔸');
  });
});
