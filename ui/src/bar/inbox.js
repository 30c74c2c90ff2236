// The bar's approval inbox: inbox_list() above the suggestions and Recent — what the watched folders would change, with "Approve…" (the run and its diff review in the run view), "Discard" and "Graph" (inbox_preview: the changes drawn in the graph window).
import { api } from '../ipc.js';
import { h, replace, relTime, shortPath, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { lineKind } from '../lib/ops.js';

/** How many of an item's change lines show before "+ N more". */
const SHOW_CHANGES = 3;

export class Inbox {
  /**
   * @param {object} o
   * @param {(item:object) => void} o.onApprove   "Approve…": run the item's request now (inbox_approve) in the run view
   * @param {(count:number) => void} [o.onCount]   how many items wait (the footer's badge)
   * @param {() => void} [o.onEmptied]   the last item was discarded from the keyboard: the focus needs a new place
   * @param {(label:string) => Promise<void>} [o.openWindow]   opens another window (open_window), after "Graph" drew the item there
   */
  constructor({ onApprove, onCount, onEmptied, openWindow }) {
    this.items = []; // inbox_list(), oldest first; empty when unavailable
    this.reported = null; // the count of the last inbox://changed, while inbox_list() cannot say
    this.onApprove = onApprove;
    this.onCount = onCount;
    this.onEmptied = onEmptied;
    this.openWindow = openWindow ?? ((label) => api.openWindow(label).catch((err) => console.warn('open_window', err)));
    this.discarding = new Set(); // ids whose inbox_discard is under way
    this.errors = new Map(); // id → { code, message } of a failed discard
    this.previews = new Map(); // id → "Graph": { busy: true } while inbox_preview runs, then { result } or { error }
    this.loads = 0; // only the newest load() draws (an older answer can come after it)
    this.el = h('section.inbox', { 'aria-label': 'Inbox', hidden: true });
  }

  /** How many items wait. */
  get count() {
    return this.items.length;
  }

  /** Asks inbox_list() again; a failing or missing one leaves the inbox empty and the rest of the bar as it is. */
  async load() {
    const load = ++this.loads;
    const [list] = await Promise.allSettled([api.inboxList()]);
    if (load !== this.loads) return this.items;
    if (list.status === 'fulfilled' && Array.isArray(list.value)) {
      this.items = list.value;
      this.reported = null;
    } else {
      this.items = [];
    }
    const ids = new Set(this.items.map((i) => i.id));
    for (const id of this.errors.keys()) if (!ids.has(id)) this.errors.delete(id);
    for (const id of this.previews.keys()) if (!ids.has(id)) this.previews.delete(id);
    this.render();
    this.onCount?.(this.reported ?? this.items.length);
    return this.items;
  }

  /** `inbox://changed` `{ count, outcome }`: the count at once, then the items. */
  changed(payload) {
    if (typeof payload?.count === 'number') {
      this.reported = payload.count;
      this.onCount?.(payload.count);
    }
    return this.load();
  }

  /** Puts the focus on the first item's "Approve…" (the footer's badge leads here). */
  focus() {
    const button = this.el.querySelector('button.inbox-approve:not(:disabled)');
    if (!button) return false;
    button.focus();
    button.closest('.inbox-item')?.scrollIntoView({ block: 'nearest' });
    return true;
  }

  async discard(item) {
    if (this.discarding.has(item.id)) return;
    const index = this.items.indexOf(item);
    this.discarding.add(item.id);
    this.errors.delete(item.id);
    this.render();
    try {
      await api.inboxDiscard(item.id);
    } catch (err) {
      // INBOX_ITEM_NOT_FOUND, RUN_BUSY …: the item stays, with the reason.
      this.discarding.delete(item.id);
      this.errors.set(item.id, err);
      this.render();
      this.button(item.id, 'discard')?.focus();
      return;
    }
    this.discarding.delete(item.id);
    await this.load();
    // The focus was on the item's Discard: it goes to the item that took its place, or leaves the empty inbox.
    if (this.el.contains(document.activeElement) || document.activeElement === document.body) {
      const next = this.items[Math.min(index, this.items.length - 1)];
      if (next) this.button(next.id, 'approve')?.focus();
      else this.onEmptied?.();
    }
  }

  /**
   * "Graph": inbox_preview simulates the item again on its folder as it is now and draws it in the graph
   * window, which opens; the item then says what the graph shows (or why it could not).
   */
  async preview(item) {
    if (this.previews.get(item.id)?.busy) return;
    this.previews.set(item.id, { busy: true });
    this.render();
    let shown;
    try {
      const result = await api.inboxPreview(item.id);
      shown = { result: result ?? { changes: 0, counts: '' } };
    } catch (err) {
      // INBOX_ITEM_NOT_FOUND, RUN_BUSY …: said in the item; the graph stays as it was.
      shown = { error: err };
    }
    this.previews.set(item.id, shown);
    // The button was disabled while it ran, which dropped the focus: it comes back to it.
    const lost = !document.activeElement || document.activeElement === document.body;
    this.render();
    if (lost) this.button(item.id, 'graph')?.focus();
    if (shown.result) await this.openWindow('graph');
  }

  /** The one-line note under an item after "Graph". */
  previewNote(shown) {
    if (!shown?.result) return null;
    const { changes, counts } = shown.result;
    const [kind, iconName, text] = changes
      ? ['', 'graph', `Shown in the graph: ${counts || plural(changes, 'change')}`]
      : ['.nothing', 'check', 'Nothing to do any more: the folder already looks like this'];
    return h(`div.inbox-note${kind}`, { role: 'status' }, icon(iconName), h('span.inbox-note-text', { title: text }, text));
  }

  /** The Approve, Discard or Graph button of an item. */
  button(id, action) {
    return this.el.querySelector(`.inbox-item[data-id="${CSS.escape(id)}"] button.inbox-${action}`);
  }

  render() {
    this.el.hidden = this.items.length === 0;
    // Drawing again keeps the focus on the same button of the same item.
    const focused = this.el.contains(document.activeElement) ? document.activeElement : null;
    const keep = focused && { id: focused.closest('.inbox-item')?.dataset.id, action: focused.dataset.action };
    const n = this.items.length;
    replace(
      this.el,
      h('h2.section-title.inbox-title', 'Inbox', h('span.inbox-waiting', ` · ${n} waiting for you`)),
      h('ul.inbox-list', this.items.map((item) => h('li', this.itemEl(item)))),
    );
    if (keep?.id && keep.action) this.button(keep.id, keep.action)?.focus();
  }

  itemEl(item) {
    const changes = Array.isArray(item.changes) ? item.changes : [];
    const busy = this.discarding.has(item.id);
    const error = this.errors.get(item.id);
    const shown = this.previews.get(item.id);
    const approveTitle = 'Run it now on the folder as it is: you review the changes before anything is written';
    return h(
      `article.inbox-item${item.destructive ? '.destructive' : ''}`,
      { dataset: { id: item.id, watch: item.watch ?? '' }, 'aria-label': `Inbox: ${item.request}`, 'aria-busy': busy ? 'true' : 'false' },
      h(
        'div.inbox-head',
        icon(item.destructive ? 'warning' : 'inbox', 'inbox-icon'),
        h('span.inbox-request', { title: item.summary ? `${item.request}\n${item.summary}` : item.request }, item.request),
        item.destructive ? h('span.badge.danger.inbox-deletes', { title: 'Some of these changes delete files' }, icon('trash'), 'deletes') : null,
        h(
          'span.inbox-actions',
          h(
            `button.btn.small.${item.destructive ? 'danger' : 'primary'}.inbox-approve`,
            { type: 'button', title: approveTitle, 'aria-label': `Approve…: ${item.request}`, dataset: { action: 'approve' }, disabled: busy, onClick: () => this.onApprove(item) },
            icon('check'),
            'Approve…',
          ),
          h(
            'button.btn.ghost.small.inbox-discard',
            { type: 'button', title: 'Drop these changes; nothing is written', 'aria-label': `Discard: ${item.request}`, dataset: { action: 'discard' }, disabled: busy, onClick: () => this.discard(item) },
            busy ? h('span.spinner') : icon('x'),
            'Discard',
          ),
          // After Discard, so the keyboard's first stop stays "Approve…" and Tab from it still reaches Discard.
          h(
            'button.btn.ghost.small.inbox-graph',
            { type: 'button', title: 'Show these changes in the graph window', 'aria-label': `Graph: ${item.request}`, dataset: { action: 'graph' }, disabled: Boolean(shown?.busy), onClick: () => this.preview(item) },
            shown?.busy ? h('span.spinner') : icon('graph'),
            'Graph',
          ),
        ),
      ),
      h(
        'div.inbox-meta',
        icon('folder'),
        h('span.code.inbox-root', { title: item.root ?? '' }, shortPath(item.root)),
        item.counts ? h('span.inbox-counts', item.counts) : null,
        item.at ? h('span.inbox-at', { title: item.at }, relTime(item.at)) : null,
      ),
      changes.length
        ? h(
            'ul.inbox-changes',
            { 'aria-label': `Changes: ${item.counts || changes.length}` },
            changes.slice(0, SHOW_CHANGES).map((line) => {
              const kind = lineKind(line);
              return h(`li.code.inbox-change${kind?.destructive ? '.destructive' : ''}`, { title: line, dataset: { op: kind?.op ?? '' } }, line);
            }),
            changes.length > SHOW_CHANGES ? h('li.inbox-more', `+${changes.length - SHOW_CHANGES} more`) : null,
          )
        : null,
      this.previewNote(shown),
      shown?.error ? h('div.inbox-error.inbox-preview-error', { role: 'alert' }, h('span.badge.danger.error-code', shown.error.code), h('span.error-text', shown.error.message)) : null,
      error ? h('div.inbox-error', { role: 'alert' }, h('span.badge.danger.error-code', error.code), h('span.error-text', error.message)) : null,
    );
  }
}
