// The machine of pasted `numactl --hardware` text in the lab (pure functions): CPU lists as
// ranges, the memory scale that keeps the simulated machine small, the line an error names,
// and the custom scenario that runs the current one on that machine.
import type { NumaHardware } from '../engine/types';

/** 4 KiB pages per MB. */
export const PAGES_PER_MB = 256;

/** The most simulated pages the chosen scale aims at (one frame window of the lab). */
export const TARGET_PAGES = 65_536;

/** The largest scale offered (2^30 real pages per simulated page: 4 PiB machines still fit). */
export const MAX_MEM_SCALE = 1 << 30;

/** CPU numbers as ranges, as numactl prints them with `--show`: [0,1,2,3,8,9] → "0-3,8-9"; "none" for no CPU. */
export function cpuRanges(cpus: readonly number[]): string {
  if (cpus.length === 0) return 'none';
  const sorted = [...cpus].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0] as number;
  let prev = start;
  for (const c of sorted.slice(1)) {
    if (c === prev + 1) {
      prev = c;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = c;
    prev = c;
  }
  parts.push(start === prev ? `${start}` : `${start}-${prev}`);
  return parts.join(',');
}

/** A node's simulated pages at `scale` real 4 KiB pages per simulated page, as the engine counts them (a node with memory keeps at least one). */
export function nodePages(sizeMb: number, scale: number): number {
  return sizeMb > 0 ? Math.max(1, Math.floor((sizeMb * PAGES_PER_MB) / scale)) : 0;
}

/** The machine's simulated pages at `scale`. */
export function simulatedPages(hw: NumaHardware, scale: number): number {
  return hw.nodes.reduce((sum, n) => sum + nodePages(n.size_mb, scale), 0);
}

/** The smallest power of two that keeps the machine at most `target` simulated pages (1 for a small machine). */
export function chooseMemScale(hw: NumaHardware, target = TARGET_PAGES): number {
  let scale = 1;
  while (scale < MAX_MEM_SCALE && simulatedPages(hw, scale) > target) scale *= 2;
  return scale;
}

/** A memory size in MB for people: "94,590 MB (92.4 GiB)". */
export function formatMb(mb: number): string {
  const n = mb.toLocaleString('en-US');
  return mb >= 1024 ? `${n} MB (${(mb / 1024).toFixed(1)} GiB)` : `${n} MB`;
}

/** The 1-based line an engine message names ("line 8: ..."), or null. */
export function errorLine(message: string): number | null {
  const m = /\bline (\d+)\b/.exec(message);
  return m ? Number(m[1]) : null;
}

/** The engine's message without its "line N: " prefix (the line is shown apart). */
export function errorWithoutLine(message: string): string {
  return message.replace(/^(?:Error: )?line \d+: /, '');
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * `text` as a TOML multi-line string: a literal `'''` string (as pasted, nothing escaped) when
 * it can be one, else a basic `"""` string with `\`, `"` and control characters escaped. Line
 * ends become `\n`; the string starts on the line after the opening quotes (TOML drops that
 * first newline) and ends with one.
 */
export function tomlMultiline(text: string): string {
  const body = text.replace(/\r\n?/g, '\n');
  const ended = body.endsWith('\n') ? body : `${body}\n`;
  if (!ended.includes("'''") && !CONTROL.test(ended)) return `'''\n${ended}'''`;
  // eslint-disable-next-line no-control-regex
  const escaped = ended.replace(/[\\"\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '"') return '\\"';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `"""\n${escaped}"""`;
}

/**
 * For each line of a TOML text, whether it starts inside a multi-line string (so it cannot
 * be a table header). A small scanner of TOML's strings and comments; good enough for the
 * scenario files people write (it never throws).
 */
export function linesInsideStrings(text: string): boolean[] {
  const inside: boolean[] = [];
  let open: '"""' | "'''" | null = null;
  let lineStart = true;
  for (let i = 0; i <= text.length; ) {
    if (lineStart) {
      inside.push(open !== null);
      lineStart = false;
    }
    if (i === text.length) break;
    const c = text[i] as string;
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (open === '"""') {
      if (c === '\\') i += 2;
      else if (text.startsWith('"""', i)) {
        // Up to two more quotes may close it (`""""` = a quote, then the delimiter).
        let j = i + 3;
        while (j < i + 5 && text[j] === '"') j++;
        open = null;
        i = j;
      } else i++;
      continue;
    }
    if (open === "'''") {
      if (text.startsWith("'''", i)) {
        let j = i + 3;
        while (j < i + 5 && text[j] === "'") j++;
        open = null;
        i = j;
      } else i++;
      continue;
    }
    if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
      continue;
    }
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      open = text.startsWith('"""', i) ? '"""' : "'''";
      i += 3;
      continue;
    }
    if (c === '"' || c === "'") {
      // A one-line string: up to its closing quote or the end of the line.
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += c === '"' && text[j] === '\\' ? 2 : 1;
      i = text[j] === c ? j + 1 : j;
      continue;
    }
    i++;
  }
  return inside;
}

/** The table a header line opens (`[machine]`, `[[machine.node]]` → "machine", "machine.node"), or null for other lines. */
export function tableHeader(line: string): string | null {
  const m = /^\s*\[\[?\s*([A-Za-z0-9_.\s"'-]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
  return m ? (m[1] as string).replace(/\s*\.\s*/g, '.').replace(/["']/g, '') : null;
}

/** The machine part of a scenario: the first line of `[machine]` (or of a `machine.*` table) and the lines it spans. */
interface MachineLines {
  first: number;
  /** Indices of every line of the machine's tables. */
  lines: Set<number>;
  /** `tlb_entries = ...` as written in `[machine]`, if it is. */
  tlbEntries: string | null;
}

function machineLines(lines: readonly string[], inside: readonly boolean[]): MachineLines | null {
  let current: string | null = null;
  let found: MachineLines | null = null;
  lines.forEach((line, i) => {
    const header = inside[i] ? null : tableHeader(line);
    if (header !== null) current = header;
    const isMachine = current === 'machine' || (current?.startsWith('machine.') ?? false);
    if (!isMachine) return;
    found ??= { first: i, lines: new Set(), tlbEntries: null };
    found.lines.add(i);
    const tlb = current === 'machine' && !inside[i] ? /^\s*tlb_entries\s*=\s*([^#\s]+)/.exec(line) : null;
    if (tlb) found.tlbEntries = tlb[1] as string;
  });
  return found;
}

/**
 * The scenario `scenarioText` run on the machine of `numactlText`: its `[machine]` table and
 * every `[[machine.node]]` (and other `machine.*` table) replaced by `numactl = '''...'''`,
 * `lscpu = '''...'''` when `lscpuText` is given, `zoneinfo = '''...'''` when `zoneinfoText` is, and `mem_scale = N` (its `tlb_entries` kept), where the old `[machine]` was (at the end when
 * there was none), and its title marked.
 */
export function scenarioOnMachine(scenarioText: string, numactlText: string, memScale: number, lscpuText = '', zoneinfoText = ''): string {
  const lines = scenarioText.replace(/\r\n?/g, '\n').split('\n');
  const inside = linesInsideStrings(lines.join('\n'));
  const machine = machineLines(lines, inside);
  const block = [
    '[machine]',
    `# The machine of pasted \`numactl --hardware\` output; ${memScale} real 4 KiB page${memScale === 1 ? '' : 's'} per simulated page.`,
    `numactl = ${tomlMultiline(numactlText)}`,
    ...(lscpuText.trim() !== '' ? ['# Its `lscpu` output: CPU lists where numactl gives none, and the LLC share per CPU (knob llc_slice_kb).', `lscpu = ${tomlMultiline(lscpuText)}`] : []),
    ...(zoneinfoText.trim() !== ''
      ? [
          '# Its `/proc/zoneinfo`: node sizes and watermarks (divided by mem_scale) and pageset sizes (per CPU, as printed).',
          `zoneinfo = ${tomlMultiline(zoneinfoText)}`,
        ]
      : []),
    `mem_scale = ${memScale}`,
    ...(machine?.tlbEntries ? [`tlb_entries = ${machine.tlbEntries}`] : []),
    '',
  ];
  const out: string[] = [];
  let titled = false;
  let section: string | null = null;
  lines.forEach((line, i) => {
    if (!inside[i]) section = tableHeader(line) ?? section;
    if (machine && i === machine.first) out.push(...block);
    if (machine?.lines.has(i)) return;
    const title = !titled && section === null && !inside[i] ? /^(\s*title\s*=\s*")(.*)("\s*)$/.exec(line) : null;
    if (title) {
      titled = true;
      const marked = title[2]?.endsWith(' (on a pasted machine)') ? title[2] : `${title[2]} (on a pasted machine)`;
      out.push(`${title[1]}${marked}${title[3]}`);
      return;
    }
    out.push(line);
  });
  if (!machine) {
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
    out.push(...block);
  }
  return out.join('\n');
}
