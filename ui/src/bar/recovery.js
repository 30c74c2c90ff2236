// The bar's interrupted-commit card: pending_recovery() shown above everything else, "Finish it" calls finish_recovery().
import { api } from '../ipc.js';
import { h, replace, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { verdictText, conflictText } from '../lib/undo.js';

/** How many of the changes still to do the card lists before "N more". */
const SHOW_PENDING = 3;

export class Recovery {
  /** @param {{ onFinished?: () => void }} [o]  called after finish_recovery completed the commit (the run is now in the history) */
  constructor({ onFinished } = {}) {
    this.onFinished = onFinished;
    this.report = null; // the open RecoveryReport (not finished), or null
    this.notice = null; // "Finished: …" after finish_recovery succeeded
    this.error = null;
    this.busy = false;
    this.checking = null;
    this.finishes = 0; // a check that overlaps a finish_recovery call is stale
    this.el = h('div.recovery-host', { hidden: true });
  }

  /** True while an interrupted commit waits to be finished. */
  get pending() {
    return Boolean(this.report);
  }

  /** Asks pending_recovery() (at start, when the bar is shown again, when the folder changes). */
  check() {
    if (this.busy) return Promise.resolve(this.report);
    this.checking ??= (async () => {
      const finishes = this.finishes;
      try {
        const report = await api.pendingRecovery();
        if (this.busy || finishes !== this.finishes) return this.report;
        const open = report && !report.finished ? report : null;
        if (open && !this.report) this.error = null;
        this.report = open;
        if (open) this.notice = null;
      } catch (err) {
        // No working folder yet, or an app without the command: nothing to recover here.
        console.warn('pending_recovery', err);
      } finally {
        this.checking = null;
      }
      this.render();
      return this.report;
    })();
    return this.checking;
  }

  /** Drops the "Finished" line (a new run starts). */
  clearNotice() {
    if (!this.notice) return;
    this.notice = null;
    this.render();
  }

  async finish() {
    if (this.busy) return;
    this.busy = true;
    this.finishes += 1;
    this.error = null;
    this.render();
    try {
      const report = await api.finishRecovery();
      if (!report || report.finished) {
        this.report = null;
        const n = report?.completed?.applied;
        this.notice = h(
          'div.recovery-done',
          { role: 'status' },
          icon('check'),
          h('span.recovery-done-text', 'Finished: the remaining changes were applied'),
          typeof n === 'number' ? h('span.faint', `(${plural(n, 'change')} written now)`) : null,
        );
        this.onFinished?.();
      } else {
        this.report = report;
      }
    } catch (err) {
      this.error = err;
    }
    this.busy = false;
    this.render();
    if (this.report) this.el.querySelector('button.finish-recovery')?.focus();
  }

  render() {
    const r = this.report;
    this.el.hidden = !r && !this.notice;
    if (!r) {
      replace(this.el, this.notice);
      return;
    }
    const total = r.total ?? 0;
    const done = r.done_before ?? 0;
    const pending = r.pending ?? [];
    const conflicts = r.conflicts ?? [];
    const doubt = Array.isArray(r.in_doubt) ? r.in_doubt : null;
    const [verdictKind, verdict] = doubt ? verdictText(doubt[1]) : [];
    replace(
      this.el,
      h(
        'article.card.recovery-card',
        { role: 'region', 'aria-label': 'Interrupted commit', 'aria-busy': this.busy ? 'true' : 'false' },
        h(
          'header.card-head',
          h('div.card-kicker', icon('warning', 'kicker-icon warn'), 'Recovery'),
          h('h3.card-title', 'A commit was interrupted'),
          h('div.recovery-root', { title: r.root ?? '' }, icon('folder'), h('span.code', r.root ?? '')),
        ),
        h(
          'p.recovery-progress',
          h('strong', `${done} of ${total} change${total === 1 ? '' : 's'} ${done === 1 ? 'was' : 'were'} applied`),
          ' before it stopped. Nothing else can be written in this folder until it is finished.',
        ),
        doubt
          ? h(
              'div.recovery-doubt',
              h('span.recovery-label', 'In doubt'),
              h('span.code.recovery-op', { title: doubt[0] }, doubt[0]),
              h(`span.badge.${verdictKind}.recovery-verdict`, verdict),
            )
          : null,
        pending.length
          ? h(
              'div.recovery-pending',
              h('span.recovery-label', `Still to do (${pending.length})`),
              h(
                'ul.recovery-lines',
                pending.slice(0, SHOW_PENDING).map((line) => h('li.code', { title: line }, line)),
                pending.length > SHOW_PENDING ? h('li.recovery-more.faint', `+ ${pending.length - SHOW_PENDING} more`) : null,
              ),
            )
          : null,
        conflicts.length
          ? h(
              'section.recovery-conflicts',
              h('h4', icon('warning'), `${plural(conflicts.length, 'conflict')} block${conflicts.length === 1 ? 's' : ''} finishing it`),
              h(
                'ul',
                conflicts.map((c) => {
                  const { path, text } = conflictText(c);
                  return h('li.recovery-conflict', { dataset: { kind: c?.kind ?? '' } }, path ? h('span.code.conflict-path', { title: path }, path) : null, h('span.conflict-text', text));
                }),
              ),
              h('p.faint.recovery-hint', 'Put these paths back as they were (or move what is in the way), then try again.'),
            )
          : null,
        this.error
          ? h('div.recovery-error', { role: 'alert' }, h('span.badge.danger.error-code', this.error.code), h('span.error-text', this.error.message))
          : null,
        h(
          'footer.recovery-actions',
          h(
            'button.btn.primary.finish-recovery',
            { type: 'button', disabled: this.busy, onClick: () => this.finish() },
            this.busy ? h('span.spinner') : icon('check'),
            'Finish it',
          ),
          h('span.card-hint', 'Applies the changes still to do, after checking the one in doubt on disk.'),
        ),
      ),
    );
  }
}
