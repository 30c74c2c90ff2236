// Recent requests of the bar: history({limit:20}), the "Recent" list with statuses and Undo, ArrowUp/ArrowDown recall.
import { api } from '../ipc.js';
import { h, replace, relTime, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';

const EXAMPLES = [
  'Clean up my Downloads folder – remove duplicates, then organize the remaining files into subfolders by type',
  'Find files larger than 500 MB in Videos',
  'Archive everything in Projects/old into old-projects.zip',
];

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
    this.el = h('section.recent');
  }

  async load() {
    const [items, runs] = await Promise.allSettled([api.history(20), api.committedRuns(20)]);
    if (items.status === 'fulfilled') {
      this.items = items.value ?? [];
      this.error = null;
    } else {
      this.items = [];
      this.error = items.reason;
    }
    // Undo is an extra: an app without committed_runs (or a failing one) just shows no Undo buttons.
    this.runs = runs.status === 'fulfilled' && Array.isArray(runs.value) ? new Map(runs.value.map((r) => [r.id, r])) : null;
    this.render();
    return this.items;
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
    if (this.error) {
      replace(this.el, h('h2.section-title', 'Recent'), h('p.muted.history-error', `History unavailable (${this.error.code}).`));
      return;
    }
    if (!this.items.length) {
      replace(
        this.el,
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
    // A column for Undo / "undone" at the end of the rows, when any row has one.
    const slots = this.items.map((item) => this.undoSlot(item));
    const withSlots = slots.some(Boolean);
    replace(
      this.el,
      h('h2.section-title', 'Recent'),
      h(
        'ul.history',
        this.items.map((item, i) => {
          const [kind, label] = statusOf(item);
          return h(
            'li.history-row',
            { dataset: item.run_id ? { run: item.run_id } : {} },
            h(
              'button.history-item',
              { type: 'button', title: item.error ? `${item.request}\n${item.error}` : item.request, onClick: () => this.onPick(item.request) },
              icon('clock', 'faint'),
              h('span.history-text', item.request),
              h('span.history-meta', [item.steps ? plural(item.steps, 'step') : '', item.at ? relTime(item.at) : ''].filter(Boolean).join(' · ')),
              h(`span.badge.${kind}.history-status`, label),
            ),
            withSlots ? h('span.history-action', slots[i]) : null,
          );
        }),
      ),
    );
  }
}
