// Where an engine message points in the scenario text. The engine's parser names the line and
// the field ("line 3, field `what`: unknown field ..."; wasm-core/engine/src/scenario.rs); some
// checks name only the field ("`param pages`: 99 is out of range") or a process/op path.

/** A problem found in the text, for the editor's gutter and underline. */
export interface Diagnostic {
  /** 1-based line, or null when the message names no line. */
  line: number | null;
  /** The field the message names, if any. */
  field: string | null;
  message: string;
}

/** Reads the line and field out of an engine message. */
export function diagnosticOf(message: string): Diagnostic {
  const m = /^line (\d+)(?:, column \d+)?(?:, field `([^`]*)`)?:\s*/.exec(message);
  if (m) return { line: Number(m[1]), field: m[2] ?? null, message: message.slice(m[0].length) || message };
  const f = /^`([^`]+)`:\s*/.exec(message);
  if (f) return { line: null, field: f[1] ?? null, message };
  return { line: null, field: null, message };
}

/**
 * The line a message without a line number most likely means: the first line that sets the
 * field's last name (`pages = …` for "param pages"), else null.
 */
export function lineOfField(text: string, field: string | null): number | null {
  if (!field) return null;
  const name = field.split(/[\s.[\]]+/).filter((p) => p !== '' && !/^\d+$/.test(p)).pop();
  if (!name) return null;
  const re = new RegExp(`^\\s*(?:name\\s*=\\s*"${name.replace(/[^\w-]/g, '')}"|${name.replace(/[^\w-]/g, '')}\\s*=)`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : null;
}
