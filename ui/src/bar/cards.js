// Inline question cards of the bar: step approval, near-miss picker, clarifications and the final diff review.
import { h, replace, isTextField } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { opsOf, isDestructiveOp, groupOps, countsText } from '../lib/ops.js';
import { skillColor, toolLabel } from '../lib/skills.js';
import { renderOpGroups } from './changes.js';
import { paramsForm } from './params-form.js';
import { renderSimilarPhotos } from './similar.js';

/** "remove-duplicates / remove" chip with the skill's colour dot. */
export function skillChip(skills, skill, tool) {
  return h(
    'span.chip.skill-chip',
    { style: { '--skill': skillColor(skills, skill) }, title: `${skill} / ${tool}` },
    h('span.dot'),
    h('span', skill),
    tool ? h('span.faint', `/ ${tool}`) : null,
  );
}

function labelOf(ctx, review) {
  const label = toolLabel(ctx.skills, review.skill, review.tool, review.params);
  return label ? h('span.tool-label', { title: label }, label) : null;
}

function kbd(text) {
  return h('kbd', text);
}

const ARROWS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'];

/** Behaviour shared by every card: sending an answer once, keyboard handling, focus. */
class Card {
  constructor(kind, ctx, cls = '') {
    this.kind = kind;
    this.ctx = ctx;
    this.busy = false;
    this.editing = false;
    this.el = h(`article.card.card-${kind.replace(/_/g, '-')}${cls}`, { tabindex: '-1', dataset: { kind } });
    this.errorEl = h('div.card-error', { role: 'alert' });
  }

  /** Buttons and fields that arrow keys move between. */
  navItems() {
    return [...this.el.querySelectorAll('button:not(:disabled):not(.sr-only)')].filter((b) => b.offsetParent !== null);
  }

  primaryButton() {
    return this.el.querySelector('[data-primary]:not(:disabled)');
  }

  focus() {
    const target = this.focusTarget?.() ?? this.primaryButton() ?? this.el;
    target.focus({ preventScroll: true });
    this.el.scrollIntoView({ block: 'nearest' });
  }

  primary() {
    this.primaryButton()?.click();
  }

  /** Esc: leaves edit mode; returns false when there was nothing to close. */
  escape() {
    if (this.editing && this.closeEdit) {
      this.closeEdit();
      return true;
    }
    return false;
  }

  /** Handles a keydown that happened anywhere in the window; true when consumed. */
  handleKey(e) {
    if (this.busy) return false;
    const t = e.target;
    const mod = e.ctrlKey || e.metaKey;
    if (e.key === 'Enter' && mod) {
      if (this.editing && this.applyEdit) this.applyEdit();
      else if (this.commit) this.commit();
      else this.primary();
      return true;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey) {
      if (t instanceof HTMLButtonElement || isTextField(t) || t?.tagName === 'A') return false;
      this.primary();
      return true;
    }
    if (this.pick && /^[1-9]$/.test(e.key) && !mod && !e.altKey && !isTextField(t)) {
      this.pick(Number(e.key) - 1);
      return true;
    }
    if (ARROWS.includes(e.key) && !isTextField(t) && !mod) {
      const items = this.navItems();
      if (!items.length) return false;
      const i = items.indexOf(document.activeElement);
      const step = e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : -1;
      const next = i === -1 ? items[0] : items[(i + step + items.length) % items.length];
      next.focus();
      next.scrollIntoView({ block: 'nearest' });
      return true;
    }
    return false;
  }

  /** Sends the answer through the run view; on failure shows the error and re-enables the card. */
  async send(answer, log) {
    if (this.busy) return;
    this.busy = true;
    this.el.classList.add('busy');
    this.errorEl.textContent = '';
    for (const b of this.el.querySelectorAll('button, input, select, textarea')) b.disabled = true;
    try {
      await this.ctx.send(answer, log);
    } catch (err) {
      this.busy = false;
      this.el.classList.remove('busy');
      for (const b of this.el.querySelectorAll('button, input, select, textarea')) b.disabled = false;
      this.errorEl.textContent = `${err.code}: ${err.message}`;
    }
  }
}

function header(kicker, title, ...extra) {
  return h('header.card-head', h('div.card-kicker', kicker), h('h3.card-title', title), ...extra);
}

// ---------------------------------------------------------------- review_step

function reviewStepCard(review, ctx) {
  const ops = opsOf(review);
  const destructive = Boolean(review.destructive) || ops.some(isDestructiveOp);
  const card = new Card('review_step', ctx, destructive ? '.destructive' : '');
  const step = review.step;
  const of = ctx.total ? ` of ${ctx.total}` : '';
  const badge = destructive
    ? h('span.badge.danger', icon('warning'), 'Destructive')
    : review.mutates
      ? h('span.badge.info', 'Changes files')
      : h('span.badge.muted', 'Read-only');

  const body = h('div.card-body');
  const actions = h('footer.card-actions');
  let form = null;

  const showChanges = () => {
    const groups = groupOps(ops);
    replace(
      body,
      review.summary ? h('p.card-summary', review.summary) : null,
      renderSimilarPhotos(review),
      groups.length ? h('div.card-counts', countsText(groups)) : null,
      ops.length || !review.changes?.length
        ? renderOpGroups(ops)
        : h('ul.plain-changes', review.changes.map((c) => h('li.code', c))),
    );
  };

  const normalActions = () => {
    replace(
      actions,
      h(
        `button.btn.${destructive ? 'danger' : 'primary'}.approve`,
        { type: 'button', dataset: { primary: '' }, onClick: () => card.send({ decision: 'approve' }, `Approved step ${step}`) },
        icon('check'),
        destructive ? 'Approve deletion' : 'Approve',
        kbd('⏎'),
      ),
      h('button.btn.edit', { type: 'button', onClick: () => card.openEdit() }, icon('edit'), 'Edit params'),
      h(
        'button.btn.rollback',
        { type: 'button', onClick: () => card.send({ decision: 'roll_back' }, `Rolled back step ${step}`) },
        icon('undo'),
        'Roll back',
      ),
      h('span.card-hint', kbd('Esc'), ' cancel run'),
    );
  };

  card.openEdit = () => {
    card.editing = true;
    card.el.classList.add('editing');
    form = paramsForm(review.params, { onSubmit: () => card.applyEdit(), unset: review.unset ?? [] });
    replace(body, h('p.card-summary.muted', 'Edit the parameters; the step runs again with them.'), form.el);
    replace(
      actions,
      h('button.btn.primary.apply', { type: 'button', dataset: { primary: '' }, onClick: () => card.applyEdit() }, 'Run with these params', kbd('Ctrl ⏎')),
      h('button.btn.ghost.cancel-edit', { type: 'button', onClick: () => card.closeEdit() }, 'Cancel', kbd('Esc')),
    );
    form.focusFirst();
  };

  card.closeEdit = () => {
    card.editing = false;
    card.el.classList.remove('editing');
    form = null;
    showChanges();
    normalActions();
    card.focus();
  };

  card.applyEdit = () => {
    if (!form) return;
    const res = form.read();
    if (!res.ok) return;
    card.send({ decision: 'override', params: res.params }, `Step ${step} re-run with edited params`);
  };

  replace(
    card.el,
    header(
      [destructive ? icon('warning', 'kicker-icon danger') : icon('spark', 'kicker-icon'), `Approve step ${step}${of}`],
      review.description || `${review.skill} / ${review.tool}`,
      h('div.card-meta', skillChip(ctx.skills, review.skill, review.tool), badge, labelOf(ctx, review)),
    ),
    body,
    card.errorEl,
    actions,
  );
  showChanges();
  normalActions();
  return card;
}

// ---------------------------------------------------------------- choose_skill

function chooseSkillCard(q, ctx) {
  const card = new Card('choose_skill', ctx);
  const step = q.step?.step;
  const candidates = q.candidates ?? [];
  const max = Math.max(0.0001, ...candidates.map((c) => c.score ?? 0));
  const plannedIndex = Math.max(0, candidates.findIndex((c) => c.planned));
  card.pick = (i) => {
    const c = candidates[i];
    if (!c) return;
    card.send(i, `Step ${step}: picked ${c.skill} / ${c.tool}`);
  };
  const list = h(
    'ol.candidates',
    candidates.map((c, i) =>
      h(
        'li',
        h(
          `button.cand${c.planned ? '.has-badge' : ''}`,
          {
            type: 'button',
            dataset: { index: String(i), ...(i === plannedIndex ? { primary: '' } : {}) },
            style: { '--skill': skillColor(ctx.skills, c.skill) },
            onClick: () => card.pick(i),
          },
          i < 9 ? kbd(String(i + 1)) : h('span.kbd-spacer'),
          h('span.dot'),
          h('span.cand-name', c.skill, h('span.faint', ` / ${c.tool}`)),
          c.planned ? h('span.badge.info', 'planned') : null,
          h('span.cand-bar', h('span.score', h('span', { style: { width: `${Math.round(((c.score ?? 0) / max) * 100)}%` } }))),
          h('span.cand-score.code', (c.score ?? 0).toFixed(2)),
        ),
      ),
    ),
  );
  card.focusTarget = () => list.querySelector(`[data-index="${plannedIndex}"]`);
  replace(
    card.el,
    header([icon('question', 'kicker-icon warn'), `Step ${step} · the match is not clear`], q.step?.description ?? 'Which skill should do this?'),
    h('p.card-summary.muted', 'Pick the skill that should run this step.'),
    list,
    card.errorEl,
    h(
      'footer.card-actions',
      h('button.btn.skip', { type: 'button', onClick: () => card.send(null, `Skipped step ${step}`) }, icon('skip'), 'Skip step'),
      h('span.card-hint', kbd('1'), '–', kbd('9'), ' pick · ', kbd('↑'), kbd('↓'), ' move · ', kbd('⏎'), ' choose'),
    ),
  );
  return card;
}

// ---------------------------------------------------------------- clarify_request / clarify_param

function coerce(ty, text) {
  const t = text.trim();
  switch (ty) {
    case 'int': {
      const n = Number(t);
      return Number.isInteger(n) && t !== '' ? { value: n } : { error: 'Enter a whole number.' };
    }
    case 'bool':
      if (/^(true|yes|y|1)$/i.test(t)) return { value: true };
      if (/^(false|no|n|0)$/i.test(t)) return { value: false };
      return { error: 'Answer yes or no.' };
    case 'paths':
      if (t.startsWith('[')) {
        try {
          return { value: JSON.parse(t) };
        } catch {
          return { error: 'Not a valid JSON list.' };
        }
      }
      return { value: t.split(/[\n,]/).map((s) => s.trim()).filter(Boolean) };
    case 'size':
      return /^\d+$/.test(t) ? { value: Number(t) } : { value: t };
    case 'any':
      try {
        return { value: JSON.parse(t) };
      } catch {
        return { value: t };
      }
    default:
      return t === '' ? { error: 'Enter a value, or skip the step.' } : { value: t };
  }
}

/**
 * A question answered with a typed value; `choices` (suggested answers, closest first) adds one
 * button each, picked with a click or its number key, and then the closest one has the focus.
 */
function questionCard(kind, ctx, { kicker, title, doc, value = '', placeholder, sendLabel, altLabel, altClass = '', onSend, onAlt, choices = [], onChoice }) {
  const card = new Card(kind, ctx);
  const input = h('input.field.answer-input', { type: 'text', value, placeholder, spellcheck: 'false', autocomplete: 'off', 'aria-label': title });
  const err = h('div.param-error', { role: 'alert' });
  const form = h(
    'form.answer-form',
    {
      onSubmit: (e) => {
        e.preventDefault();
        const res = onSend(input.value);
        if (res?.error) {
          err.textContent = res.error;
          input.classList.add('invalid');
          return;
        }
        card.send(res.value, res.log);
      },
    },
    input,
    h('button.btn.primary', { type: 'submit', dataset: { primary: '' } }, sendLabel, kbd('⏎')),
  );
  card.primary = () => form.requestSubmit();
  const picks = choices.length
    ? h(
        'ol.clarify-choices',
        choices.map((c, i) =>
          h(
            'li',
            h(
              'button.btn.clarify-choice',
              { type: 'button', dataset: { index: String(i) }, title: c, onClick: () => card.pick(i) },
              i < 9 ? kbd(String(i + 1)) : null,
              h('span.choice-name', c),
              i === 0 ? h('span.badge.info.choice-closest', 'closest') : null,
            ),
          ),
        ),
      )
    : null;
  if (picks) {
    card.pick = (i) => {
      if (i < choices.length) card.send(choices[i], onChoice(choices[i]));
    };
    card.focusTarget = () => picks.querySelector('button');
  } else {
    card.focusTarget = () => input;
  }
  const n = Math.min(choices.length, 9);
  replace(
    card.el,
    header(kicker, title),
    doc ? h('p.card-summary.muted', doc) : null,
    picks,
    form,
    err,
    card.errorEl,
    h(
      'footer.card-actions',
      h(`button.btn.ghost.alt${altClass}`, { type: 'button', onClick: () => card.send(onAlt.value, onAlt.log) }, altLabel),
      h('span.card-hint', picks ? [kbd('1'), n > 1 ? ['–', kbd(String(n))] : null, ' pick · '] : null, kbd('Esc'), ' cancel run'),
    ),
  );
  if (!picks) queueMicrotask(() => input.select());
  return card;
}

function clarifyRequestCard(q, ctx) {
  return questionCard('clarify_request', ctx, {
    kicker: [icon('question', 'kicker-icon warn'), 'I need a detail'],
    title: q.question,
    placeholder: 'Say what should happen…',
    sendLabel: 'Send',
    altLabel: 'Go on with what you understood',
    onSend: (text) => (text.trim() ? { value: text.trim(), log: `Clarified: “${text.trim()}”` } : { value: null, log: 'Went on without a clarification' }),
    onAlt: { value: null, log: 'Went on without a clarification' },
  });
}

// With `choices` (suggested answers, closest first; e.g. the categories for a file the sorting is
// unsure of) the card offers them as buttons, keeps the field for a value of one's own, and null
// is "Leave it" (the file stays where it is).
function clarifyParamCard(q, ctx) {
  const suggestion = q.suggestion === null || q.suggestion === undefined ? '' : typeof q.suggestion === 'string' ? q.suggestion : JSON.stringify(q.suggestion);
  const choices = Array.isArray(q.choices) ? q.choices.filter((c) => typeof c === 'string' && c !== '') : [];
  const set = (value) => `Step ${q.step}: ${q.param} = ${JSON.stringify(value)}`;
  return questionCard('clarify_param', ctx, {
    kicker: [icon('question', 'kicker-icon warn'), `Step ${q.step} · ${q.skill} / ${q.tool}`],
    title: q.question,
    doc: `${q.param}${q.ty ? ` (${q.ty})` : ''}${q.doc ? ` — ${q.doc}` : ''}`,
    value: suggestion,
    placeholder: choices.length ? 'Or type another name…' : undefined,
    sendLabel: 'Use this',
    altLabel: choices.length ? 'Leave it' : 'Skip this step',
    altClass: choices.length ? '.clarify-leave' : '',
    choices,
    onChoice: set,
    onSend: (text) => {
      if (choices.length && !text.trim()) return { error: 'Pick one above, type a name, or leave it.' };
      const res = coerce(q.ty, text);
      return res.error ? res : { value: res.value, log: set(res.value) };
    },
    onAlt: choices.length ? { value: null, log: `Step ${q.step}: left it as it is` } : { value: null, log: `Skipped step ${q.step}` },
  });
}

// ---------------------------------------------------------------- review_diff

function reviewDiffCard(review, ctx) {
  const ops = opsOf(review);
  const groups = groupOps(ops);
  const destructive = ops.some(isDestructiveOp);
  const dry = Boolean(review.dry_run);
  const card = new Card('review_diff', ctx, destructive && !dry ? '.destructive' : '');
  const n = ops.length || review.changes?.length || 0;
  const title = dry ? 'Dry run — nothing will be written' : `Write ${n} change${n === 1 ? '' : 's'} to disk?`;
  const commit = () => card.send({ decision: 'commit' }, 'Committed the changes');
  const discard = () => card.send({ decision: 'discard' }, 'Discarded every change');
  // In a dry run the engine writes nothing either way; Close answers `discard`, the safe choice.
  card.commit = dry ? () => card.send({ decision: 'discard' }, 'Closed the dry-run review') : commit;

  const points = dry ? [] : review.rollback_points ?? [];
  const rollbacks = points.length
    ? h(
        'section.rollbacks',
        h('h4', icon('undo'), 'Rollback points'),
        h(
          'ul',
          points.map((p) =>
            h(
              'li.rollback-point',
              { dataset: { snapshot: p.snapshot } },
              h('span.rp-step', `Step ${p.step}`),
              skillChip(ctx.skills, p.skill, p.tool),
              h('span.rp-changes.faint', `${p.changes} change${p.changes === 1 ? '' : 's'}`),
              h(
                'button.btn.small.undo-from',
                { type: 'button', onClick: () => card.send({ decision: 'roll_back_to', snapshot: p.snapshot }, `Undid step ${p.step} and later`) },
                `Undo from step ${p.step}`,
              ),
            ),
          ),
        ),
      )
    : null;

  const actions = dry
    ? [h('button.btn.primary.close', { type: 'button', dataset: { primary: '' }, onClick: () => card.commit() }, 'Close', kbd('⏎'))]
    : [
        h('button.btn.primary.commit', { type: 'button', dataset: { primary: '' }, onClick: commit }, icon('check'), 'Commit', kbd('Ctrl ⏎')),
        h('button.btn.discard', { type: 'button', onClick: discard }, icon('x'), 'Discard'),
      ];

  replace(
    card.el,
    header(
      [icon(destructive ? 'warning' : 'spark', `kicker-icon${destructive ? ' danger' : ''}`), 'Final review', dry ? h('span.badge.info', 'Dry run') : null],
      title,
      h('div.card-meta', groups.length ? h('span.card-counts', countsText(groups)) : null, destructive ? h('span.badge.danger', icon('warning'), 'Deletes files') : null),
    ),
    review.summary ? h('p.card-summary', review.summary) : null,
    h('div.card-body', ops.length || !review.changes?.length ? renderOpGroups(ops) : h('ul.plain-changes', review.changes.map((c) => h('li.code', c)))),
    rollbacks,
    card.errorEl,
    h('footer.card-actions', ...actions, h('span.card-hint', kbd('Esc'), ' cancel run')),
  );
  return card;
}

function unknownCard(question, ctx) {
  const card = new Card('unknown', ctx);
  replace(
    card.el,
    header([icon('question', 'kicker-icon warn'), 'Question'], `Unsupported question “${question.type}”`),
    h('pre.code', JSON.stringify(question, null, 2)),
    card.errorEl,
    h('footer.card-actions', h('button.btn.primary', { type: 'button', dataset: { primary: '' }, onClick: () => card.send(null, 'Answered with nothing') }, 'Continue')),
  );
  return card;
}

/** Builds the card for a question (`question.type`); ctx = { skills, total, send(answer, log) }. */
export function buildCard(question, ctx) {
  switch (question?.type) {
    case 'review_step':
      return reviewStepCard(question.review, ctx);
    case 'choose_skill':
      return chooseSkillCard(question, ctx);
    case 'clarify_request':
      return clarifyRequestCard(question, ctx);
    case 'clarify_param':
      return clarifyParamCard(question.question, ctx);
    case 'review_diff':
      return reviewDiffCard(question.review, ctx);
    default:
      return unknownCard(question ?? {}, ctx);
  }
}
