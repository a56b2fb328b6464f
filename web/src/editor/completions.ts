// What the editor completes, read from the scenario format's JSON Schema (generated from the
// engine's serde types: scenarios/scenario.schema.json) and the engine's toggle registry:
// section headers, the fields of the section the cursor is in, op names, knob names, toggle ids.

/** One completion: what is inserted and a line about it. */
export interface Completion {
  label: string;
  detail: string;
  kind: 'section' | 'field' | 'op' | 'knob' | 'toggle' | 'value';
}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const firstLine = (v: unknown): string => (typeof v === 'string' ? (v.split('\n')[0] ?? '') : '');

/** The schema's definition a property refers to (directly, through allOf, or as an array's items). */
function refOf(schema: Json, prop: Json): Json | null {
  const candidates = [prop, obj(prop.items), ...((prop.allOf as unknown[]) ?? []).map(obj), ...((prop.anyOf as unknown[]) ?? []).map(obj)];
  for (const c of candidates) {
    const ref = c.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) return obj(obj(schema.definitions)[ref.slice('#/definitions/'.length)]);
    const items = obj(c.items).$ref;
    if (typeof items === 'string') return obj(obj(schema.definitions)[items.slice('#/definitions/'.length)]);
  }
  return null;
}

/** Fields of an object schema, with their descriptions. */
function fieldsOf(def: Json | null): Completion[] {
  return Object.entries(obj(def?.properties)).map(([label, p]) => ({ label, detail: firstLine(obj(p).description), kind: 'field' as const }));
}

/** What completes where, built once from the schema. */
export interface CompletionTables {
  /** Table headers: "[knobs]", "[[process]]", "[[process.thread]]", … */
  sections: Completion[];
  /** Fields by table path ("" for the top level, "process.thread.ops" for an op). */
  fields: Map<string, Completion[]>;
  ops: Completion[];
  knobs: Completion[];
}

/** Reads the completion tables out of the scenario schema. */
export function completionTables(schemaValue: unknown): CompletionTables {
  const schema = obj(schemaValue);
  const fields = new Map<string, Completion[]>();
  const sections: Completion[] = [];
  const walk = (path: string, def: Json, depth: number): void => {
    fields.set(path, fieldsOf(def));
    if (depth > 3) return;
    for (const [name, p] of Object.entries(obj(def.properties))) {
      const prop = obj(p);
      const target = refOf(schema, prop);
      if (!target || !target.properties) continue;
      const child = path ? `${path}.${name}` : name;
      const isArray = prop.type === 'array' || obj(prop.items).$ref !== undefined;
      sections.push({ label: isArray ? `[[${child}]]` : `[${child}]`, detail: firstLine(prop.description), kind: 'section' });
      walk(child, target, depth + 1);
    }
  };
  walk('', schema, 0);
  const opSpec = obj(obj(schema.definitions).OpSpec);
  const ops = ((opSpec.oneOf as unknown[]) ?? []).flatMap((v) => {
    const op = obj(obj(obj(v).properties).op);
    return typeof op.const === 'string' ? [{ label: op.const, detail: firstLine(op.description), kind: 'op' as const }] : [];
  });
  // An op's fields: the union over the op kinds (the schema says which go with which).
  const opFields = new Map<string, Completion>();
  for (const v of (opSpec.oneOf as unknown[]) ?? []) for (const f of fieldsOf(obj(v))) if (!opFields.has(f.label)) opFields.set(f.label, f);
  fields.set('process.thread.ops', [...opFields.values()]);
  const knobs = fieldsOf(obj(obj(schema.definitions).KnobsSpec)).map((k) => ({ ...k, kind: 'knob' as const }));
  return { sections, fields, ops, knobs };
}

/** The table the line `lineIndex` (0-based) is in: the last header above it ("" at the top). */
export function tableAt(lines: readonly string[], lineIndex: number): string {
  for (let i = Math.min(lineIndex, lines.length - 1); i >= 0; i--) {
    const m = /^\s*\[\[?\s*([A-Za-z0-9_.]+)\s*\]\]?/.exec(lines[i] ?? '');
    if (m) return m[1] ?? '';
  }
  return '';
}

/** Toggle ids for the [toggles] table, from the engine's registry. */
export interface ToggleName {
  id: string;
  title: string;
}

/**
 * What to offer at the cursor: the line's text before the cursor and the table it is in decide.
 * Returns the completions and where the word being completed starts on the line.
 */
export function completionsAt(tables: CompletionTables, toggles: readonly ToggleName[], lines: readonly string[], lineIndex: number, column: number): { from: number; options: Completion[] } | null {
  const before = (lines[lineIndex] ?? '').slice(0, column);
  // A table header being typed.
  const header = /^\s*(\[\[?[A-Za-z0-9_.]*)$/.exec(before);
  if (header) return { from: before.length - (header[1] ?? '').length, options: tables.sections };
  const table = tableAt(lines, lineIndex);
  // A value: op = "…" or a toggle's value.
  const opValue = /\bop\s*=\s*"([A-Za-z_]*)$/.exec(before);
  if (opValue) return { from: before.length - (opValue[1] ?? '').length, options: tables.ops };
  // Ops are written inline (ops = [{ op = "…", … }]): a key after "{" or "," inside braces is an op field.
  const opKey = /[{,]\s*([A-Za-z0-9_]*)$/.exec(before);
  if (opKey && /\{[^}]*$/.test(before)) return { from: before.length - (opKey[1] ?? '').length, options: tables.fields.get('process.thread.ops') ?? [] };
  if (/=/.test(before)) return null;
  const word = /([A-Za-z0-9_]*)$/.exec(before)?.[1] ?? '';
  const from = before.length - word.length;
  if (table === 'knobs') return { from, options: tables.knobs };
  if (table === 'toggles') return { from, options: toggles.map((t) => ({ label: t.id, detail: t.title, kind: 'toggle' as const })) };
  return { from, options: tables.fields.get(table) ?? [] };
}
