// CodeMirror 6 setup for SKILL.md: markdown body + YAML frontmatter, dark theme, live skill_check diagnostics.
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { markdown } from '@codemirror/lang-markdown';
import { yamlFrontmatter } from '@codemirror/lang-yaml';
import { linter, lintGutter } from '@codemirror/lint';
import { tags as t } from '@lezer/highlight';

const theme = EditorView.theme(
  {
    '&': { height: '100%', backgroundColor: '#15161c', color: '#dfe3ec', fontSize: '13px' },
    '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.55' },
    '.cm-content': { caretColor: '#8b9cff', padding: '10px 0' },
    '.cm-cursor, .cm-dropCursor': { borderLeftColor: '#8b9cff', borderLeftWidth: '2px' },
    '&.cm-focused': { outline: 'none' },
    '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'rgba(139,156,255,0.28) !important' },
    '.cm-gutters': { backgroundColor: '#15161c', color: '#5d6477', border: 'none', borderRight: '1px solid rgba(255,255,255,0.06)' },
    '.cm-activeLineGutter': { backgroundColor: 'rgba(255,255,255,0.04)', color: '#aab1c2' },
    '.cm-activeLine': { backgroundColor: 'rgba(255,255,255,0.03)' },
    '.cm-lineNumbers .cm-gutterElement': { padding: '0 10px 0 14px' },
    '.cm-foldPlaceholder': { backgroundColor: '#2a2e3a', border: 'none', color: '#aab1c2' },
    '.cm-tooltip': { backgroundColor: '#22252e', border: '1px solid rgba(255,255,255,0.14)', color: '#e9ebf1' },
    '.cm-tooltip-lint': { fontFamily: 'var(--font)', fontSize: '12.5px' },
    '.cm-diagnostic-error': { borderLeftColor: '#f87171' },
    '.cm-diagnostic-warning': { borderLeftColor: '#fbbf24' },
    '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy #f87171', textUnderlineOffset: '3px' },
    '.cm-lintRange-warning': { backgroundImage: 'none', textDecoration: 'underline wavy #fbbf24', textUnderlineOffset: '3px' },
    '.cm-panels': { backgroundColor: '#1a1c23', color: '#e9ebf1' },
    '.cm-searchMatch': { backgroundColor: 'rgba(253,224,71,0.25)' },
    '.cm-matchingBracket': { backgroundColor: 'rgba(139,156,255,0.25) !important' },
  },
  { dark: true },
);

const highlight = HighlightStyle.define([
  { tag: t.heading1, color: '#f4f6fb', fontWeight: '700', fontSize: '1.15em' },
  { tag: [t.heading2, t.heading3, t.heading4], color: '#c9d1ff', fontWeight: '700' },
  { tag: t.heading, color: '#c9d1ff', fontWeight: '700' },
  { tag: [t.strong], fontWeight: '700', color: '#f4f6fb' },
  { tag: [t.emphasis], fontStyle: 'italic' },
  { tag: [t.link, t.url], color: '#60a5fa' },
  { tag: [t.monospace], color: '#f0abfc' },
  { tag: [t.list, t.quote], color: '#aab1c2' },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: '#8b9cff' },
  { tag: [t.string, t.special(t.string)], color: '#86efac' },
  { tag: [t.number, t.bool, t.null, t.atom], color: '#fdba74' },
  { tag: [t.keyword, t.operator], color: '#f472b6' },
  { tag: [t.comment, t.meta, t.processingInstruction, t.contentSeparator], color: '#6f768a' },
  { tag: [t.punctuation, t.separator, t.bracket], color: '#8d94a6' },
  { tag: [t.labelName, t.typeName], color: '#5eead4' },
]);

/** A Diagnostic from skill_check (1-based line; 0 = whole file) as a CodeMirror diagnostic. */
export function toCmDiagnostic(doc, d) {
  const n = Number(d.line) >= 1 && Number(d.line) <= doc.lines ? Number(d.line) : 1;
  const line = doc.line(n);
  return {
    from: line.from,
    to: line.to,
    severity: d.severity === 'warning' ? 'warning' : d.severity === 'info' ? 'info' : 'error',
    source: d.code,
    message: Number(d.line) >= 1 ? d.message : `${d.message} (whole file)`,
  };
}

/**
 * The extensions of a SKILL.md editor.
 * @param {object} o
 * @param {(text:string) => Promise<Array>} o.check   skill_check on the buffer
 * @param {(diags:Array|null, err?:object) => void} o.onDiagnostics   the raw Diagnostics (for the problems list)
 * @param {() => void} o.onSave   Ctrl/Cmd+S
 * @param {(update) => void} o.onChange   every document change
 */
export function extensions({ check, onDiagnostics, onSave, onChange }) {
  return [
    basicSetup,
    yamlFrontmatter({ content: markdown() }),
    EditorView.lineWrapping,
    theme,
    syntaxHighlighting(highlight),
    lintGutter(),
    linter(
      async (view) => {
        const text = view.state.doc.toString();
        let diags;
        try {
          diags = (await check(text)) ?? [];
        } catch (err) {
          onDiagnostics(null, err);
          return [];
        }
        onDiagnostics(diags);
        return diags.map((d) => toCmDiagnostic(view.state.doc, d));
      },
      { delay: 300 },
    ),
    keymap.of([
      {
        key: 'Mod-s',
        preventDefault: true,
        run: () => {
          onSave();
          return true;
        },
      },
    ]),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) onChange(u);
    }),
  ];
}

export function createState(text, exts) {
  return EditorState.create({ doc: text, extensions: exts });
}

export { EditorView };
