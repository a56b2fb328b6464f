import { describe, expect, it } from 'vitest';
import type { NumaHardware } from '../engine/types';
import { chooseMemScale, cpuRanges, errorLine, errorWithoutLine, linesInsideStrings, nodePages, scenarioOnMachine, simulatedPages, tableHeader, tomlMultiline } from './numactl';

// What the engine reads from the AWS c5n.18xlarge output (web/e2e/fixtures).
const AWS: NumaHardware = {
  nodes: [
    { id: 0, cpus: [...Array.from({ length: 18 }, (_, i) => i), ...Array.from({ length: 18 }, (_, i) => 36 + i)], size_mb: 94590, free_mb: 44981 },
    { id: 1, cpus: [...Array.from({ length: 18 }, (_, i) => 18 + i), ...Array.from({ length: 18 }, (_, i) => 54 + i)], size_mb: 94710, free_mb: 79679 },
  ],
  distances: [
    [10, 21],
    [21, 10],
  ],
};

describe('numactl preview', () => {
  it('shows CPU lists as ranges', () => {
    expect(cpuRanges(AWS.nodes[0]?.cpus ?? [])).toBe('0-17,36-53');
    expect(cpuRanges([3, 1, 2, 7])).toBe('1-3,7');
    expect(cpuRanges([5])).toBe('5');
    expect(cpuRanges([])).toBe('none');
  });

  it('chooses the smallest power-of-two scale that keeps the machine at most 65,536 pages', () => {
    const scale = chooseMemScale(AWS);
    expect(scale).toBe(1024);
    expect(simulatedPages(AWS, scale)).toBe(23647 + 23677);
    expect(simulatedPages(AWS, scale / 2)).toBeGreaterThan(65_536);
    const small: NumaHardware = { nodes: [{ id: 0, cpus: [0], size_mb: 100, free_mb: null }], distances: null };
    expect(chooseMemScale(small)).toBe(1);
    expect(simulatedPages(small, 1)).toBe(25_600);
  });

  it('counts pages as the engine does: a node with memory keeps one page, a memory-less node none', () => {
    expect(nodePages(1, 1 << 20)).toBe(1);
    expect(nodePages(0, 1)).toBe(0);
  });

  it('finds the line an error names', () => {
    expect(errorLine('line 8: distance row for node 1 has 1 values, the header names 2 nodes')).toBe(8);
    expect(errorWithoutLine('line 8: distance row for node 1')).toBe('distance row for node 1');
    expect(errorLine('no line here')).toBeNull();
  });
});

describe('TOML strings', () => {
  it('keeps pasted text as a literal string when it can', () => {
    expect(tomlMultiline('node 0 cpus: 0\r\nnode 0 size: 1 MB')).toBe("'''\nnode 0 cpus: 0\nnode 0 size: 1 MB\n'''");
    expect(tomlMultiline('a\tb\n')).toBe("'''\na\tb\n'''");
  });

  it("escapes text that a literal string cannot hold (''' or control characters)", () => {
    expect(tomlMultiline("it's '''odd''' \\ \"q\"")).toBe('"""\nit\'s \'\'\'odd\'\'\' \\\\ \\"q\\"\n"""');
    expect(tomlMultiline('bell\u0007')).toBe('"""\nbell\\u0007\n"""');
  });

  it('tells the lines inside multi-line strings', () => {
    const text = 'a = """\n[machine]\n"""\n[machine]\nb = \'\'\'x\n[[machine.node]]\'\'\'\n# [x] """\nc = "\\"""\n[y]';
    expect(linesInsideStrings(text)).toEqual([false, true, true, false, false, true, false, false, false]);
  });

  it('reads table headers', () => {
    expect(tableHeader('[machine]')).toBe('machine');
    expect(tableHeader('  [[ machine.node ]]  # n')).toBe('machine.node');
    expect(tableHeader('[params.pages]')).toBe('params.pages');
    expect(tableHeader('distance = [[10, 21], [21, 10]]')).toBeNull();
    expect(tableHeader('  [21, 10],')).toBeNull();
  });
});

const SCENARIO = `format = 1
id = "s"
title = "A \\"small\\" run"
description = """
Not a table:
[machine]
"""

[params.pages]
default = 4

[machine]
tlb_entries = 8 # per CPU
distance = [
  [10, 21],
  [21, 10],
]

[[machine.node]]
cpus = [0, 1]
mem_pages = 16

[[machine.node]]
cpus = [2, 3]
mem_pages = 16

[[process]]
name = "app"
`;

describe('scenario on a pasted machine', () => {
  it('replaces [machine] and its nodes with the numactl text and mem_scale, keeping tlb_entries and everything else', () => {
    const out = scenarioOnMachine(SCENARIO, 'node 0 cpus: 0-3\nnode 0 size: 100 MB', 4);
    expect(out).toBe(`format = 1
id = "s"
title = "A \\"small\\" run (on a pasted machine)"
description = """
Not a table:
[machine]
"""

[params.pages]
default = 4

[machine]
# The machine of pasted \`numactl --hardware\` output; 4 real 4 KiB pages per simulated page.
numactl = '''
node 0 cpus: 0-3
node 0 size: 100 MB
'''
mem_scale = 4
tlb_entries = 8

[[process]]
name = "app"
`);
  });

  it('adds a machine to a scenario without one, and replaces one it made before', () => {
    const once = scenarioOnMachine('format = 1\nid = "x"\n', 'node 0 cpus: 0', 1);
    expect(once).toMatch(/^format = 1\nid = "x"\n\n\[machine\]\n#.*\nnumactl = '''\nnode 0 cpus: 0\n'''\nmem_scale = 1\n$/);
    const twice = scenarioOnMachine(once, 'node 0 cpus: 1', 2);
    expect(twice.match(/\[machine\]/g)).toHaveLength(1);
    expect(twice).toContain("numactl = '''\nnode 0 cpus: 1\n'''\nmem_scale = 2");
  });

  it('carries the lscpu text when given, as a literal string that a replaced machine drops again', () => {
    const out = scenarioOnMachine('format = 1\nid = "x"\n', 'node 0 cpus: 0', 1, 'CPU(s): 1\r\nNUMA node0 CPU(s): 0\r\n');
    expect(out).toContain("lscpu = '''\nCPU(s): 1\nNUMA node0 CPU(s): 0\n'''\nmem_scale = 1");
    const again = scenarioOnMachine(out, 'node 0 cpus: 0', 1);
    expect(again).not.toContain('lscpu');
  });

  it('carries the zoneinfo text after lscpu, markup and quotes kept as text, and drops it on the next machine', () => {
    const zone = "Node 0, zone Normal\r\n  min 5\n<script>alert('''x''')</script>\n";
    const out = scenarioOnMachine('format = 1\nid = "x"\n', 'node 0 cpus: 0', 4, 'CPU(s): 1\n', zone);
    // A text holding ''' cannot be a literal string: a basic one, escaped.
    expect(out).toContain(`zoneinfo = """\nNode 0, zone Normal\n  min 5\n<script>alert('''x''')</script>\n"""\nmem_scale = 4`);
    expect(out.indexOf('lscpu =')).toBeLessThan(out.indexOf('zoneinfo ='));
    expect(scenarioOnMachine(out, 'node 0 cpus: 0', 4)).not.toContain('zoneinfo');
    // Without lscpu.
    expect(scenarioOnMachine('format = 1\n', 'node 0 cpus: 0', 1, '', 'Node 0, zone DMA\n')).toContain("numactl = '''\nnode 0 cpus: 0\n'''\n# Its `/proc/zoneinfo`");
  });
});
