// The scenario editor proper: CodeMirror 6 with TOML highlighting, the engine's own messages as
// inline diagnostics (the line underlined, the message beside it), and completion of sections,
// fields, op names, knobs and toggle ids from the format's schema. Loaded only when the editor
// is opened (a chunk of its own: see EditorDialog.tsx).
import { useEffect, useLayoutEffect, useRef } from 'react';
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { linter, lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import schema from '../../../scenarios/scenario.schema.json';
import { completionTables, completionsAt, type ToggleName } from './completions';
import type { Diagnostic } from './diagnostics';
import { adoptEditorStyles } from './adoptStyles';

/** Colours of the highlighted text: theme tokens, so the editor follows the lab's theme. */
const highlight = HighlightStyle.define([
  { tag: tags.comment, color: 'var(--ink-faint)', fontStyle: 'italic' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--text-green)' },
  { tag: [tags.number, tags.bool, tags.atom], color: 'var(--text-blue)' },
  { tag: [tags.heading, tags.meta, tags.bracket], color: 'var(--text-purple)', fontWeight: '600' },
  { tag: [tags.propertyName, tags.variableName, tags.keyword], color: 'var(--text-vermillion)' },
]);

/** The editor's look, all from theme tokens. */
const look = EditorView.theme({
  '&': { color: 'var(--ink)', backgroundColor: 'var(--surface)', fontSize: '0.95rem', height: '100%' },
  '.cm-content': { fontFamily: 'var(--mono, ui-monospace, monospace)', caretColor: 'var(--ink)' },
  '.cm-gutters': { backgroundColor: 'var(--panel-bg)', color: 'var(--ink-faint)', borderRight: '1px solid var(--rule)' },
  '.cm-activeLine': { backgroundColor: 'var(--surface-hover)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--surface-hover)' },
  '.cm-scroller': { overflow: 'auto' },
  '&.cm-focused': { outline: '2px solid var(--focus)' },
  '.cm-tooltip': { backgroundColor: 'var(--bg)', color: 'var(--ink)', border: '1px solid var(--rule)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--highlight-bg)', color: 'var(--ink)' },
  '.cm-diagnostic-error': { borderLeft: '4px solid var(--danger-strong)' },
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--danger-strong)' },
});

const tables = completionTables(schema);

/** Props of the editor. */
export interface CodeEditorProps {
  /** The text the editor starts with (later changes come from the user, or `replace`). */
  initial: string;
  /** Bumped with `replaceWith` to put new text in the editor (Reset to the built-in). */
  replaceKey: number;
  replaceWith: string;
  onChange: (text: string) => void;
  /** The engine's verdict on the current text (none while it reads). */
  diagnostics: readonly Diagnostic[];
  toggles: readonly ToggleName[];
  /** Accessible name of the text area. */
  label: string;
  describedBy?: string;
}

/** Converts our diagnostics to CodeMirror's: the whole line they name (line 1 when they name none). */
function toCm(view: EditorView, list: readonly Diagnostic[]): CmDiagnostic[] {
  return list.map((d) => {
    const n = Math.min(Math.max(1, d.line ?? 1), view.state.doc.lines);
    const line = view.state.doc.line(n);
    return { from: line.from, to: Math.max(line.from, line.to), severity: 'error', message: d.line === null && d.field ? `${d.message} (no line given: the first line that sets ${d.field})` : d.message };
  });
}

/** The CodeMirror editor. */
export default function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  const toggles = useRef(props.toggles);
  useLayoutEffect(() => {
    onChange.current = props.onChange;
    toggles.current = props.toggles;
  });

  useEffect(() => {
    if (!host.current) return;
    const complete = (ctx: CompletionContext): CompletionResult | null => {
      const line = ctx.state.doc.lineAt(ctx.pos);
      const lines = ctx.state.doc.toString().split('\n');
      const found = completionsAt(tables, toggles.current, lines, line.number - 1, ctx.pos - line.from);
      if (!found || (found.from === ctx.pos - line.from && !ctx.explicit)) return null;
      return { from: line.from + found.from, options: found.options.map((o) => ({ label: o.label, detail: o.detail, type: o.kind === 'section' ? 'namespace' : o.kind === 'op' ? 'function' : 'property' })), validFor: /^[\w[\].]*$/ };
    };
    adoptEditorStyles();
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: props.initial,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          bracketMatching(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          StreamLanguage.define(toml),
          syntaxHighlighting(highlight),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          autocompletion({ override: [complete] }),
          lintGutter(),
          // Diagnostics come from the engine (setDiagnostics below), never from a linter of ours.
          linter(null),
          keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
          look,
          EditorView.contentAttributes.of({ 'aria-label': props.label, ...(props.describedBy ? { 'aria-describedby': props.describedBy } : {}) }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChange.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is made once; later text comes from the user or `replaceKey`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const v = view.current;
    if (!v || props.replaceKey === 0) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.replaceWith } });
    // replaceWith is read when the key changes, not on every keystroke.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.replaceKey]);

  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, toCm(v, props.diagnostics)));
  }, [props.diagnostics]);

  return <div ref={host} style={{ height: '100%' }} />;
}
