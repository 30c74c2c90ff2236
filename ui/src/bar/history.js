// Recent requests of the bar: history({limit:20}), the "Recent" list with statuses, ArrowUp/ArrowDown recall.
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
  constructor({ onPick }) {
    this.items = [];
    this.index = -1; // -1: not recalling
    this.onPick = onPick;
    this.el = h('section.recent');
  }

  async load() {
    try {
      this.items = (await api.history(20)) ?? [];
      this.error = null;
    } catch (err) {
      this.items = [];
      this.error = err;
    }
    this.render();
    return this.items;
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
    replace(
      this.el,
      h('h2.section-title', 'Recent'),
      h(
        'ul.history',
        this.items.map((item) => {
          const [kind, label] = statusOf(item);
          return h(
            'li',
            h(
              'button.history-item',
              { type: 'button', title: item.error ? `${item.request}\n${item.error}` : item.request, onClick: () => this.onPick(item.request) },
              icon('clock', 'faint'),
              h('span.history-text', item.request),
              h('span.history-meta', [item.steps ? plural(item.steps, 'step') : '', item.at ? relTime(item.at) : ''].filter(Boolean).join(' · ')),
              h(`span.badge.${kind}.history-status`, label),
            ),
          );
        }),
      ),
    );
  }
}
