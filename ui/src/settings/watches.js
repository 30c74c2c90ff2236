// Settings' "Watched folders": watches_list() with Remove (watch_remove), and a small form to add one (watch_add), errors shown inline by their code.
import { api } from '../ipc.js';
import { h, replace, relTime, shortPath } from '../lib/dom.js';
import { icon } from '../lib/icons.js';

/** The add form's id: its fields sit inside the settings form, but submit this one (HTML's `form` attribute). */
const FORM_ID = 'watch-form';

/** The settle time a new watch starts with (watch_add's default too). */
const DEFAULT_SETTLE_SECS = 5;

/** Which field an engine error is about, by its code (the message is shown as it is). */
const ERROR_FIELD = { WATCH_NOT_A_FOLDER: 'folder', SCOPE_VIOLATION: 'folder', INVALID_ANSWER: 'request' };

function row(label, hint, ...control) {
  return h('div.row', h('div.row-label', h('span.label', label), hint ? h('span.hint', hint) : null), h('div.row-control', ...control));
}

/** A watch's settle time in words: "after 5 s of quiet". */
function settleText(secs) {
  const n = Number(secs ?? 0);
  if (n >= 120 && n % 60 === 0) return `after ${n / 60} min of quiet`;
  return `after ${n} s of quiet`;
}

export class Watches {
  constructor() {
    this.watches = []; // watches_list()
    this.unavailable = null; // { code, message } when watches_list() failed
    this.busy = false; // watch_add under way
    this.removing = new Set(); // ids whose watch_remove is under way
    this.loads = 0; // only the newest load() draws

    const field = (id, attrs) => h(`input.field#${id}`, { form: FORM_ID, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'watch-error', ...attrs });
    this.fields = {
      folder: field('watch-folder', { type: 'text', placeholder: 'Downloads' }),
      request: field('watch-request', { type: 'text', placeholder: 'organize by type' }),
      settle: field('watch-settle', { type: 'number', min: '0', step: '1', value: String(DEFAULT_SETTLE_SECS), inputmode: 'numeric', 'aria-label': 'Settle time in seconds' }),
    };
    this.trusted = h('input#watch-trusted', { type: 'checkbox', form: FORM_ID });
    this.errorEl = h('div.watch-error#watch-error', { role: 'alert' });
    this.statusEl = h('span.watch-status', { role: 'status', 'aria-live': 'polite' });
    this.submit = h('button.btn.watch-submit', { type: 'submit', form: FORM_ID }, icon('plus'), 'Add watch');
    this.listEl = h('ul.watch-list', { 'aria-label': 'Watched folders' });
    this.listError = h('div.watch-error.watch-list-error', { role: 'alert' });
    // Placed outside the settings form (forms do not nest); Enter in a field adds the watch, not saves the settings.
    this.form = h(`form#${FORM_ID}`, {
      novalidate: true,
      'aria-label': 'Add a watched folder',
      onSubmit: (e) => {
        e.preventDefault();
        this.add();
      },
    });

    this.el = h(
      'section.group.watches',
      { 'aria-labelledby': 'watches-title' },
      h('h2#watches-title', 'Watched folders'),
      row('Watching', 'When files arrive and the folder has been quiet for a while, its request is simulated; the changes wait in the bar’s inbox.', this.listEl, this.listError),
      row(
        'Add a folder',
        'Relative to the working folder; . for the folder itself. A folder watched already gets the new request.',
        h(
          'div.watch-add',
          { role: 'group', 'aria-label': 'Add a watched folder' },
          h(
            'div.watch-fields',
            h('label.watch-field.watch-folder-field', h('span.watch-field-label', 'Folder'), this.fields.folder),
            h('label.watch-field.watch-request-field', h('span.watch-field-label', 'Request'), this.fields.request),
            h(
              'label.watch-field.watch-settle-field',
              { title: 'How long the folder must be quiet after the last change before it is handled' },
              h('span.watch-field-label', 'Settle time'),
              h('span.watch-settle-input', this.fields.settle, h('span.faint', { 'aria-hidden': 'true' }, 's')),
            ),
          ),
          h('label.watch-trusted', this.trusted, h('span', 'Trusted: commit changes that delete nothing without asking')),
          h('p.hint.watch-note', 'Changes that delete files always wait in the inbox, trusted or not.'),
          this.errorEl,
          h('div.watch-actions', this.submit, this.statusEl),
        ),
      ),
    );
    this.renderList();
  }

  /** Asks watches_list() again (at start, after a change, when a watched folder was handled). */
  async load() {
    const load = ++this.loads;
    try {
      const list = await api.watchesList();
      if (load !== this.loads) return;
      this.watches = Array.isArray(list) ? list : [];
      this.unavailable = null;
    } catch (err) {
      if (load !== this.loads) return;
      this.watches = [];
      this.unavailable = err;
    }
    this.renderList();
  }

  renderList() {
    // Drawing again keeps the focus on the same Remove button.
    const focusedId = this.listEl.contains(document.activeElement) ? document.activeElement.closest('.watch-row')?.dataset.id : null;
    if (this.unavailable) {
      replace(this.listEl, h('li.watch-empty.faint', `Watched folders unavailable (${this.unavailable.code}).`));
      return;
    }
    if (!this.watches.length) {
      replace(this.listEl, h('li.watch-empty.faint', 'No folder is watched.'));
      return;
    }
    replace(
      this.listEl,
      this.watches.map((w) => {
        const removing = this.removing.has(w.id);
        const where = w.folder === '.' ? w.root : `${w.root}/${w.folder}`;
        return h(
          'li.watch-row',
          { dataset: { id: w.id }, 'aria-busy': removing ? 'true' : 'false' },
          icon('eye', 'watch-icon'),
          h(
            'div.watch-main',
            h(
              'div.watch-line',
              h('span.code.watch-folder', { title: where }, w.folder === '.' ? '. (the working folder)' : w.folder),
              h('span.watch-root.faint', { title: w.root ?? '' }, `in ${shortPath(w.root)}`),
              w.trusted ? h('span.badge.ok.watch-trusted-badge', { title: 'Commits changes that delete nothing without asking' }, 'trusted') : null,
            ),
            h('div.watch-line.watch-details', h('span.watch-request', { title: w.request }, w.request)),
            h(
              'div.watch-line.watch-timing',
              h('span.watch-settle', settleText(w.settle_secs)),
              typeof w.last_handled_ms === 'number' ? h('span.watch-handled', { title: new Date(w.last_handled_ms).toLocaleString() }, `handled ${relTime(w.last_handled_ms)}`) : null,
            ),
          ),
          h(
            'button.btn.small.ghost.watch-remove',
            { type: 'button', title: 'Stop watching this folder', 'aria-label': `Remove watch: ${w.folder}`, disabled: removing, onClick: () => this.remove(w) },
            removing ? h('span.spinner') : icon('trash'),
            'Remove',
          ),
        );
      }),
    );
    if (focusedId) this.listEl.querySelector(`.watch-row[data-id="${CSS.escape(focusedId)}"] .watch-remove`)?.focus();
  }

  async remove(watch) {
    if (this.removing.has(watch.id)) return;
    const index = this.watches.indexOf(watch);
    this.removing.add(watch.id);
    replace(this.listError);
    this.renderList();
    try {
      // `false`: it was gone already; the list shows what is left either way.
      await api.watchRemove(watch.id);
    } catch (err) {
      replace(this.listError, h('span.badge.danger.error-code', err.code), h('span.error-text', err.message));
    }
    this.removing.delete(watch.id);
    const hadFocus = this.listEl.contains(document.activeElement) || document.activeElement === document.body;
    await this.load();
    if (!hadFocus) return;
    const next = this.watches[Math.min(index, this.watches.length - 1)];
    const button = next && this.listEl.querySelector(`.watch-row[data-id="${CSS.escape(next.id)}"] .watch-remove`);
    (button ?? this.fields.folder).focus();
  }

  /** Checks the fields as watch_add would, then adds the watch; an error stays under the form, its field marked. */
  async add() {
    if (this.busy) return;
    const folder = this.fields.folder.value.trim();
    const request = this.fields.request.value.trim();
    const settleRaw = this.fields.settle.value.trim();
    const settle = Number(settleRaw);
    if (!folder) return this.showError({ message: 'Name the folder to watch (. for the working folder itself).' }, 'folder');
    if (!request) return this.showError({ message: 'Say what to do with the files that arrive.' }, 'request');
    if (settleRaw === '' || !Number.isInteger(settle) || settle < 0) return this.showError({ message: 'The settle time is a whole number of seconds, 0 or more.' }, 'settle');
    this.setBusy(true);
    this.showError(null);
    replace(this.statusEl);
    let watch;
    try {
      watch = await api.watchAdd({ folder, request, settleSecs: settle, trusted: this.trusted.checked });
    } catch (err) {
      // ROOT_MISSING, WATCH_NOT_A_FOLDER, SCOPE_VIOLATION, INVALID_ANSWER: the form stays as typed.
      this.setBusy(false);
      this.showError(err, ERROR_FIELD[err.code] ?? null);
      return;
    }
    this.setBusy(false);
    this.fields.folder.value = '';
    this.fields.request.value = '';
    this.fields.settle.value = String(DEFAULT_SETTLE_SECS);
    this.trusted.checked = false;
    replace(this.statusEl, icon('check'), `Watching ${watch?.folder ?? folder}`);
    await this.load();
    this.fields.folder.focus();
  }

  /** Shows `{code?, message}` under the form and marks the field it is about (null clears). */
  showError(err, fieldName = null) {
    for (const [name, input] of Object.entries(this.fields)) {
      const bad = Boolean(err) && name === fieldName;
      input.classList.toggle('invalid', bad);
      input.setAttribute('aria-invalid', bad ? 'true' : 'false');
    }
    if (!err) {
      replace(this.errorEl);
      return;
    }
    replace(this.errorEl, icon('warning'), err.code ? h('span.badge.danger.error-code', err.code) : null, h('span.error-text', err.message ?? err.code));
    (this.fields[fieldName] ?? this.fields.folder).focus();
  }

  setBusy(busy) {
    this.busy = busy;
    this.submit.disabled = busy;
    this.el.querySelector('.watch-add')?.setAttribute('aria-busy', busy ? 'true' : 'false');
    replace(this.submit, busy ? h('span.spinner') : icon('plus'), 'Add watch');
  }
}
