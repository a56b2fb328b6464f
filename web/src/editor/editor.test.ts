import { describe, expect, it } from 'vitest';
import schema from '../../../scenarios/scenario.schema.json';
import { completionTables, completionsAt, tableAt } from './completions';
import { diagnosticOf, lineOfField } from './diagnostics';
import { clearDraft, loadDraft, saveDraft } from './draft';

/** A Storage stand-in: a Map, optionally refusing writes. */
function memoryStorage(refuse = false): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => {
      if (refuse) throw new Error('QuotaExceededError');
      m.set(k, v);
    },
    removeItem: (k) => void m.delete(k),
  };
}

describe('drafts', () => {
  it('keep the text per scenario until cleared', () => {
    const s = memoryStorage();
    expect(loadDraft(s, 'pcp-101')).toBeNull();
    expect(saveDraft(s, 'pcp-101', { text: 'a', base: 'b', savedAt: 5 })).toBeNull();
    expect(loadDraft(s, 'pcp-101')).toEqual({ text: 'a', base: 'b', savedAt: 5 });
    expect(loadDraft(s, 'custom')).toBeNull();
    clearDraft(s, 'pcp-101');
    expect(loadDraft(s, 'pcp-101')).toBeNull();
  });
  it('say why when the browser refuses, and ignore a damaged entry', () => {
    expect(saveDraft(memoryStorage(true), 'x', { text: 'a', base: '', savedAt: 1 })).toMatch(/refused.*copy it/);
    expect(saveDraft(null, 'x', { text: 'a', base: '', savedAt: 1 })).toMatch(/no local storage/);
    expect(saveDraft(memoryStorage(), 'x', { text: 'a'.repeat(1_000_001), base: '', savedAt: 1 })).toMatch(/more than/);
    const s = memoryStorage();
    s.setItem('mmviz.draft.x', '{not json');
    expect(loadDraft(s, 'x')).toBeNull();
    s.setItem('mmviz.draft.x', '{"text": 3}');
    expect(loadDraft(s, 'x')).toBeNull();
  });
});

describe('diagnosticOf', () => {
  it('reads line and field from the engine’s messages', () => {
    expect(diagnosticOf('line 3, field `what`: unknown field `what`, expected one of `format`')).toEqual({ line: 3, field: 'what', message: 'unknown field `what`, expected one of `format`' });
    expect(diagnosticOf('line 7: expected `=`')).toEqual({ line: 7, field: null, message: 'expected `=`' });
    expect(diagnosticOf('`param pages`: 99 is out of range 1..=32')).toEqual({ line: null, field: 'param pages', message: '`param pages`: 99 is out of range 1..=32' });
    expect(diagnosticOf('something else')).toEqual({ line: null, field: null, message: 'something else' });
  });
  it('finds the line of a field a message names without a line', () => {
    const text = 'format = 1\n[[params]]\nname = "pages"\ndefault = 8\n[knobs]\npcp_batch = 8\n';
    expect(lineOfField(text, 'param pages')).toBe(3);
    expect(lineOfField(text, 'knobs.pcp_batch')).toBe(6);
    expect(lineOfField(text, 'nothing_here')).toBeNull();
    expect(lineOfField(text, null)).toBeNull();
  });
});

describe('completions from the schema', () => {
  const tables = completionTables(schema);
  const toggles = [{ id: 'numa_delay_map', title: 'NUMA balancing: delay map' }];
  const labels = (r: ReturnType<typeof completionsAt>): string[] => r?.options.map((o) => o.label) ?? [];

  it('know the sections, op names and knobs the engine reads', () => {
    expect(tables.sections.map((s) => s.label)).toEqual(expect.arrayContaining(['[knobs]', '[machine]', '[[process]]', '[[process.thread]]', '[[chapter]]', '[[expect]]']));
    expect(tables.ops.map((o) => o.label)).toEqual(expect.arrayContaining(['access', 'touch', 'scan', 'compute']));
    expect(tables.knobs.map((k) => k.label)).toContain('pcp_batch');
  });

  it('offer what fits where the cursor is', () => {
    const lines = ['format = 1', '[knobs]', 'pcp_', '[toggles]', 'numa', '[[process.thread]]', 'ops = [', '  { op = "to', '  { op = "touch", wr', '[[', 'ti'];
    expect(tableAt(lines, 2)).toBe('knobs');
    expect(labels(completionsAt(tables, toggles, lines, 2, 4))).toContain('pcp_batch');
    expect(labels(completionsAt(tables, toggles, lines, 4, 4))).toEqual(['numa_delay_map']);
    expect(labels(completionsAt(tables, toggles, lines, 7, 12))).toContain('touch');
    expect(completionsAt(tables, toggles, lines, 7, 12)?.from).toBe(10);
    expect(labels(completionsAt(tables, toggles, lines, 8, 21))).toContain('write');
    expect(labels(completionsAt(tables, toggles, lines, 9, 2))).toContain('[[chapter]]');
    // Under [[process.thread]] a key: the thread's fields.
    expect(labels(completionsAt(tables, toggles, ['[[process.thread]]', 'cp'], 1, 2))).toContain('cpu');
    // After "=" (a value) nothing is offered but op names.
    expect(completionsAt(tables, toggles, ['[knobs]', 'pcp_batch = '], 1, 12)).toBeNull();
  });
});
