// Recent requests of the bar: history({limit:20}), the "Recent" list with statuses, Undo and "Save as workflow", suggested workflows, ArrowUp/ArrowDown recall.
import { api } from '../ipc.js';
import { h, replace, relTime, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { nameFromRequest, signatureText, foldersText } from '../lib/workflows.js';
import { WorkflowForm, savedNotice } from './workflow-form.js';

const EXAMPLES = [
  'Clean up my Downloads folder – remove duplicates, then organize the remaining files into subfolders by type',
  'Find files larger than 500 MB in Videos',
  'Archive everything in Projects/old into old-projects.zip',
];

/** How many suggested workflows show above the list. */
const SHOW_SUGGESTIONS = 2;

/** Status pill of a history entry: committed, dry run, failed, cancelled … */
function statusOf(item) {
  if (item.error) {
    const cancelled = /cancel/i.test(item.error) || /cancel/i.test(item.status ?? '');
    return cancelled ? ['muted', 'cancelled'] : ['danger', 'failed'];
  }
  if (item.committed) return ['ok', 'committed'];
  const st = String(item.status ?? '').toLowerCase();
  if (st.includes('dry')) return ['info', 'dry run'];
  if (st === 'done' || st === 'finished') return ['muted', 'not written'];
  return ['muted', st || 'unknown'];
}

export class History {
  /**
   * @param {object} o
   * @param {(text:string) => void} o.onPick   a recent request was clicked
   * @param {(item:object, run:object) => void} [o.onUndo]   "Undo" of a committed run still in effect
   */
  constructor({ onPick, onUndo }) {
    this.items = [];
    this.runs = null; // committed_runs() by id; null when unavailable (then no Undo buttons)
    this.index = -1; // -1: not recalling
    this.onPick = onPick;
    this.onUndo = onUndo;
    this.suggestions = []; // workflow_suggestions(); empty when unavailable
    this.suggestionForm = null; // { key, form } of the suggestion whose name form is open
    this.suggestionSaved = null; // the confirmation of a suggestion saved since the list loaded
    this.rowForms = new Map(); // run id → the WorkflowForm open in that row (until the list renders again)
    this.suggestionsEl = h('section.workflow-suggestions', { 'aria-label': 'Suggested workflows' });
    this.el = h('section.recent');
  }

  async load() {
    const [items, runs, suggestions] = await Promise.allSettled([api.history(20), api.committedRuns(20), api.workflowSuggestions()]);
    if (items.status === 'fulfilled') {
      this.items = items.value ?? [];
      this.error = null;
    } else {
      this.items = [];
      this.error = items.reason;
    }
    // Undo is an extra: an app without committed_runs (or a failing one) just shows no Undo buttons.
    this.runs = runs.status === 'fulfilled' && Array.isArray(runs.value) ? new Map(runs.value.map((r) => [r.id, r])) : null;
    // Suggestions too: an app without workflow_suggestions (or a failing one) shows none.
    this.suggestions = suggestions.status === 'fulfilled' && Array.isArray(suggestions.value) ? suggestions.value : [];
    this.suggestionSaved = null;
    this.render();
    return this.items;
  }

  /** Asks workflow_suggestions() again (after a save: the saved sequence is no longer suggested). */
  async loadSuggestions() {
    try {
      const list = await api.workflowSuggestions();
      this.suggestions = Array.isArray(list) ? list : [];
    } catch {
      this.suggestions = [];
    }
    this.renderSuggestions();
  }

  /** The committed run of a history entry, if committed_runs() knows it. */
  runOf(item) {
    return (item.run_id && this.runs?.get(item.run_id)) || null;
  }

  /** The Undo button, the "undone" badge, or nothing, for the slot at the end of a row. */
  undoSlot(item) {
    const run = this.runOf(item);
    if (!run) return null;
    if (run.undone_by) return h('span.badge.muted.history-undone', { title: `Undone by ${run.undone_by}` }, 'undone');
    if (!this.onUndo) return null;
    // An undo is a run like any other: undoing it puts the run's changes back.
    const title = run.undoes ? `Undo this undo (puts the changes of ${run.undoes} back)` : 'Undo this run';
    return h(
      'button.btn.small.history-undo',
      { type: 'button', title, 'aria-label': `${title}: ${item.request}`, onClick: () => this.onUndo(item, run) },
      icon('undo'),
      'Undo',
    );
  }

  /** A committed run still in effect and not an undo: it can be saved as a workflow. */
  savable(item) {
    const run = this.runOf(item);
    return Boolean(run && !run.undone_by && !run.undoes);
  }

  /** The "Save as workflow" button of a row whose run can be saved, or nothing. */
  saveSlot(item, row) {
    if (!this.savable(item)) return null;
    const title = 'Save as workflow';
    return h(
      'button.btn.small.history-save',
      {
        type: 'button',
        title: 'Save this run as a workflow: run it again by name',
        'aria-label': `${title}: ${item.request}`,
        'aria-expanded': 'false',
        onClick: (e) => this.openRowForm(item, row, e.currentTarget),
      },
      icon('save'),
      h('span.btn-label', title),
    );
  }

  /** Opens the name form in a row (or goes back to the one open there; after a save, a new one for another name). */
  openRowForm(item, row, button) {
    const open = this.rowForms.get(item.run_id);
    if (open && !open.saved && row.contains(open.el)) {
      open.focus();
      return;
    }
    open?.el.remove();
    const close = () => {
      form.el.remove();
      this.rowForms.delete(item.run_id);
      button.setAttribute('aria-expanded', 'false');
      button.focus();
    };
    const form = new WorkflowForm({
      runId: item.run_id,
      name: nameFromRequest(item.request),
      what: item.request,
      onCancel: close,
      onSaved: () => {
        button.setAttribute('aria-expanded', 'false');
        form.focus();
        this.loadSuggestions();
      },
    });
    this.rowForms.set(item.run_id, form);
    row.append(form.el);
    button.setAttribute('aria-expanded', 'true');
    form.focus();
  }

  /** Opens the name form of a suggested workflow in its card. */
  openSuggestionForm(suggestion, card, button) {
    const key = suggestionKey(suggestion);
    if (this.suggestionForm?.key === key && card.contains(this.suggestionForm.form.el)) {
      this.suggestionForm.form.focus();
      return;
    }
    const form = new WorkflowForm({
      runId: suggestion.runs[0],
      name: suggestion.name,
      what: signatureText(suggestion.signature),
      onCancel: () => {
        form.el.remove();
        this.suggestionForm = null;
        button.setAttribute('aria-expanded', 'false');
        button.focus();
      },
      onSaved: (saved) => {
        // The card gives way to the confirmation; the engine no longer suggests what was saved.
        this.suggestionForm = null;
        this.suggestionSaved = savedNotice(saved);
        this.suggestions = this.suggestions.filter((s) => suggestionKey(s) !== key);
        this.renderSuggestions();
        this.suggestionSaved.focus();
        this.loadSuggestions();
      },
    });
    this.suggestionForm = { key, form };
    card.append(form.el);
    button.setAttribute('aria-expanded', 'true');
    form.focus();
  }

  /** The cards of the suggested workflows (at most two), and the confirmation of one just saved. */
  renderSuggestions() {
    const shown = this.suggestions.filter((s) => Array.isArray(s?.runs) && s.runs.length).slice(0, SHOW_SUGGESTIONS);
    const open = this.suggestionForm;
    if (open && !shown.some((s) => suggestionKey(s) === open.key)) this.suggestionForm = null;
    this.suggestionsEl.hidden = !shown.length && !this.suggestionSaved;
    // Drawing again keeps the focus where it was (a name field, the confirmation).
    const focused = this.suggestionsEl.contains(document.activeElement) ? document.activeElement : null;
    replace(
      this.suggestionsEl,
      this.suggestionSaved,
      shown.map((s) => {
        const key = suggestionKey(s);
        const steps = signatureText(s.signature);
        const folders = foldersText(s.folders);
        const button = h(
          'button.btn.small.workflow-suggestion-save',
          {
            type: 'button',
            title: `Save as the workflow “${s.name}”`,
            'aria-label': `Save as workflow: ${steps}`,
            'aria-expanded': 'false',
            onClick: () => this.openSuggestionForm(s, card, button),
          },
          icon('save'),
          'Save as workflow',
        );
        const card = h(
          'article.workflow-suggestion',
          { dataset: { name: s.name ?? '' } },
          h(
            'div.workflow-suggestion-line',
            icon('spark', 'workflow-suggestion-icon'),
            h(
              'p.workflow-suggestion-text',
              { title: (s.requests ?? []).join('\n') },
              'You did this ',
              h('strong.workflow-suggestion-count', `${s.runs.length} times`),
              ': ',
              h('span.workflow-suggestion-steps', steps),
              folders ? [' ', h('span.workflow-suggestion-folders', `(${folders})`)] : null,
            ),
            button,
          ),
        );
        // A form open in this card before the cards were drawn again stays open.
        if (this.suggestionForm?.key === key) {
          card.append(this.suggestionForm.form.el);
          button.setAttribute('aria-expanded', 'true');
        }
        return card;
      }),
    );
    if (focused?.isConnected && document.activeElement !== focused) focused.focus();
  }

  /** Unique request texts, newest first. */
  requests() {
    const seen = new Set();
    return this.items.map((i) => i.request).filter((r) => r && !seen.has(r) && seen.add(r));
  }

  /** ArrowUp (dir = +1, older) / ArrowDown (dir = -1, newer). Returns the text to show, or null. */
  recall(dir) {
    const list = this.requests();
    if (!list.length) return null;
    const next = Math.min(list.length - 1, Math.max(-1, this.index + dir));
    this.index = next;
    return next === -1 ? '' : list[next];
  }

  get recalling() {
    return this.index !== -1;
  }

  resetRecall() {
    this.index = -1;
  }

  render() {
    this.renderSuggestions();
    this.rowForms.clear();
    if (this.error) {
      replace(this.el, this.suggestionsEl, h('h2.section-title', 'Recent'), h('p.muted.history-error', `History unavailable (${this.error.code}).`));
      return;
    }
    if (!this.items.length) {
      replace(
        this.el,
        this.suggestionsEl,
        h('h2.section-title', 'Try'),
        h(
          'ul.examples',
          EXAMPLES.map((text) =>
            h('li', h('button.example', { type: 'button', title: text, onClick: () => this.onPick(text) }, icon('spark', 'example-icon'), h('span.example-text', text))),
          ),
        ),
      );
      return;
    }
    // A column for Undo / "undone" at the end of the rows, when any row has one; then one for "Save as workflow".
    const slots = this.items.map((item) => this.undoSlot(item));
    const withSlots = slots.some(Boolean);
    const withSave = this.items.some((item) => this.savable(item));
    replace(
      this.el,
      this.suggestionsEl,
      h('h2.section-title', 'Recent'),
      h(
        'ul.history',
        this.items.map((item, i) => {
          const [kind, label] = statusOf(item);
          const row = h('li.history-row', { dataset: item.run_id ? { run: item.run_id } : {} });
          return replace(
            row,
            h(
              'button.history-item',
              { type: 'button', title: item.error ? `${item.request}\n${item.error}` : item.request, onClick: () => this.onPick(item.request) },
              icon('clock', 'faint'),
              h('span.history-text', item.request),
              h('span.history-meta', [item.steps ? plural(item.steps, 'step') : '', item.at ? relTime(item.at) : ''].filter(Boolean).join(' · ')),
              h(`span.badge.${kind}.history-status`, label),
            ),
            withSlots ? h('span.history-action', slots[i]) : null,
            withSave ? h('span.history-save-slot', this.saveSlot(item, row)) : null,
          );
        }),
      ),
    );
  }
}

/** What tells two suggestions apart: the sequence and the newest run. */
function suggestionKey(s) {
  return `${(s?.signature ?? []).join(' ')}|${s?.runs?.[0] ?? ''}`;
}
