// The bar's approval inbox: inbox_list() above the suggestions and Recent — what the watched folders would change, with "Approve…" (the run and its diff review in the run view) and "Discard".
import { api } from '../ipc.js';
import { h, replace, relTime, shortPath } from '../lib/dom.js';
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
   */
  constructor({ onApprove, onCount, onEmptied }) {
    this.items = []; // inbox_list(), oldest first; empty when unavailable
    this.reported = null; // the count of the last inbox://changed, while inbox_list() cannot say
    this.onApprove = onApprove;
    this.onCount = onCount;
    this.onEmptied = onEmptied;
    this.discarding = new Set(); // ids whose inbox_discard is under way
    this.errors = new Map(); // id → { code, message } of a failed discard
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

  /** The Approve or Discard button of an item. */
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
      error ? h('div.inbox-error', { role: 'alert' }, h('span.badge.danger.error-code', error.code), h('span.error-text', error.message)) : null,
    );
  }
}
