// One run in the bar (a request, or an undo of one): live stage stepper per plan step, inline question cards, answers log, report or error.
import { h, replace, fmtMs, ticked } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { STAGES, stageLabel, isGlobalStage } from '../lib/stages.js';
import { undoPlannedText } from '../lib/undo.js';
import { buildCard, skillChip } from './cards.js';

const STATUS_ICON = { done: 'check', skipped: 'skip', failed: 'x', rolled_back: 'undo' };
/** The icon before the title of a run that is not a plain request. */
const KIND_ICON = { undo: 'undo', inbox: 'inbox' };
/** How much of a model planner's output the bar keeps on screen while it plans. */
const TOKEN_TAIL = 400;

export class RunView {
  /**
   * @param {object} o
   * @param {string} o.request   the request text
   * @param {boolean} o.dryRun
   * @param {Array} o.skills     skills_list() (for colours)
   * @param {(id:number, answer:any) => Promise} o.answer   sends an answer
   * @param {() => void} o.cancel   asks the engine to cancel
   * @param {'run'|'undo'|'inbox'} [o.kind]   an undo_run has no plan or stages: its `undo_planned` event takes the plan's place;
   *   an inbox item's approval (inbox_approve) is a run of its watch's request
   */
  constructor({ request, dryRun, skills, answer, cancel, kind = 'run' }) {
    this.kind = kind;
    this.request = request;
    this.dryRun = dryRun;
    this.skills = skills ?? [];
    this.answer = answer;
    this.cancel = cancel;
    this.running = true;
    this.steps = new Map();
    this.globalStages = {};
    this.current = null;
    this.active = null;
    this.reportText = null;
    this.errorShown = null;
    this.cancelling = false;
    this.runId = null; // the `request` event's id: pipeline://token payloads of other runs are ignored
    this.tokens = '';
    this.earlyTokens = new Map(); // run_id → text, for tokens that arrive before the `request` event

    this.statusEl = h('div.run-status', { role: 'status', 'aria-live': 'polite' });
    this.cancelBtn = h('button.btn.ghost.small.cancel-run', { type: 'button', onClick: () => this.askCancel() }, icon('stop'), 'Cancel');
    this.confirmEl = h('div.confirm-cancel', { hidden: true });
    this.planEl = h('ol.plan', { 'aria-label': 'Plan' });
    this.preplanEl = h('div.preplan');
    this.tokensText = h('div.plan-tokens-text', { 'aria-live': 'off' });
    this.tokensEl = h('div.plan-tokens', { 'aria-label': 'Planner output' }, h('div.plan-tokens-head', h('span.spinner'), 'Planning…'), this.tokensText);
    this.logEl = h('div.timeline');
    this.outcomeEl = h('div.outcome-host');
    this.undoEl = h('div.undo-plan-host');
    this.planWarnings = 0; // warnings that repeat the undo plan's kept / not restorable paths (shown in it already)
    this.el = h(
      'section.run',
      { dataset: { state: 'running', kind } },
      h(
        'header.run-head',
        KIND_ICON[kind] ? icon(KIND_ICON[kind], 'run-kind') : null,
        h('div.run-title', { title: kind === 'inbox' ? `From the inbox: ${request}` : request }, request),
        this.statusEl,
        this.cancelBtn,
      ),
      this.confirmEl,
      this.preplanEl,
      this.planEl,
      this.undoEl,
      this.logEl,
      this.outcomeEl,
    );
    this.renderPreplan();
    this.renderStatus();
  }

  // ------------------------------------------------------------ channel messages

  onMessage(msg) {
    if (!msg || !this.running) return;
    if (msg.kind === 'event') this.onEvent(msg.event);
    else if (msg.kind === 'question') this.showQuestion(msg.id, msg.question);
    else if (msg.kind === 'answered' && this.active?.id === msg.id && !this.active.card.busy) {
      // Answered elsewhere (the graph window's rollback, or a cancel): close the card.
      this.closeQuestion(msg.id, 'check', 'Answered in another window');
    }
  }

  step(n) {
    if (n === null || n === undefined) return null;
    if (!this.steps.has(n)) this.steps.set(n, { step: n, description: '', skill: '', tool: '', status: 'pending', stages: {}, summary: '' });
    return this.steps.get(n);
  }

  onEvent(ev) {
    const s = this.step(ev.step);
    if (ev.event !== 'warning') this.planWarnings = 0;
    switch (ev.event) {
      case 'stage_started':
        this.current = { stage: ev.stage, step: ev.step };
        if (s && !isGlobalStage(ev.stage)) {
          s.stages[ev.stage] = { state: 'running' };
          if (s.status === 'pending') s.status = 'running';
        } else this.globalStages[ev.stage] = { state: 'running' };
        break;
      case 'stage_finished':
        if (s && !isGlobalStage(ev.stage)) {
          s.stages[ev.stage] = { state: 'done', ms: ev.ms };
          if (ev.stage === 'stage' && s.status === 'running') s.status = 'done';
        } else this.globalStages[ev.stage] = { state: 'done', ms: ev.ms };
        break;
      case 'request':
        this.runId = ev.id ?? null;
        if (this.runId && this.earlyTokens.has(this.runId)) this.addTokens(this.earlyTokens.get(this.runId));
        this.earlyTokens.clear();
        break;
      case 'planned':
        for (const p of ev.plan?.steps ?? []) Object.assign(this.step(p.step), { description: p.description, skill: p.skill, tool: p.tool });
        this.planned = true;
        this.tokens = '';
        break;
      case 'skill_matched':
        if (!s) break;
        Object.assign(s, { skill: ev.skill, tool: ev.tool, score: ev.score });
        break;
      case 'near_miss': {
        if (!s) break;
        const chosen = typeof ev.chosen === 'number' ? ev.candidates?.[ev.chosen] : ev.chosen;
        if (chosen?.skill) Object.assign(s, { skill: chosen.skill, tool: chosen.tool });
        break;
      }
      case 'dispatched':
        if (!s) break;
        s.summary = ev.ok ? ev.summary : ev.error?.message ?? ev.summary ?? 'failed';
        if (!ev.ok) s.status = 'failed';
        break;
      case 'graph_delta':
        if (!s) break;
        s.changes = ev.ops?.length ?? ev.changes?.length ?? 0;
        break;
      case 'overridden':
        if (!s) break;
        s.note = 'params edited';
        break;
      case 'rolled_back':
        if (s) s.status = 'rolled_back';
        for (const n of Array.isArray(ev.undone) ? ev.undone : []) {
          const u = this.step(typeof n === 'object' ? n.step : n);
          if (u) u.status = 'rolled_back';
        }
        this.log('undo', `Rolled back to ${ev.snapshot}`);
        break;
      case 'skipped':
        if (!s) break;
        s.status = 'skipped';
        s.summary = ev.reason ?? 'skipped';
        break;
      case 'warning':
        if (this.planWarnings > 0 && (ev.step === null || ev.step === undefined)) this.planWarnings -= 1;
        else this.log('warning', ev.message, 'warn');
        break;
      case 'undo_planned':
        this.undoPlan = ev;
        // The engine follows with one warning per kept and per not restorable path: the plan lists them.
        this.planWarnings = (ev.kept?.length ?? 0) + (ev.not_restorable?.length ?? 0);
        this.renderUndoPlan();
        break;
      case 'clarification':
        if (ev.answer !== undefined && ev.answer !== null) this.log('question', `${ev.question} → ${typeof ev.answer === 'string' ? ev.answer : JSON.stringify(ev.answer)}`);
        break;
      case 'commit_progress':
        this.commitProgress = ev;
        break;
      case 'committed':
        this.committed = ev;
        break;
      case 'report':
        this.reportText = ev.text;
        break;
      case 'failed':
        this.showError({ code: ev.code, message: ev.message });
        break;
      case 'finished':
        this.finishedEvent = ev;
        break;
      default:
        break;
    }
    if (ev.event === 'planned' || (!s && ev.event.startsWith('stage_'))) this.renderPlan();
    else if (s) this.renderStep(s);
    this.renderPreplan();
    this.renderStatus();
  }

  // ------------------------------------------------------------ planner tokens

  /** A `pipeline://token` payload `{run_id, text}`: shown while the model planner writes the plan. */
  onToken(payload) {
    const text = payload?.text;
    if (!this.running || this.planned || typeof text !== 'string' || !text) return;
    const id = payload.run_id ?? null;
    if (!this.runId) {
      // The channel's `request` event can come after the first app-wide tokens: keep them until then.
      if (id === null || (!this.earlyTokens.has(id) && this.earlyTokens.size >= 4)) return;
      this.earlyTokens.set(id, tail((this.earlyTokens.get(id) ?? '') + text));
      return;
    }
    if (id !== this.runId) return;
    this.addTokens(text);
    this.renderPreplan();
  }

  addTokens(text) {
    this.clipped ||= this.tokens.length + text.length > TOKEN_TAIL;
    this.tokens = tail(this.tokens + text);
    this.tokensText.textContent = `${this.clipped ? '…' : ''}${this.tokens}`;
    // Follow the text as it grows.
    this.tokensText.scrollTop = this.tokensText.scrollHeight;
  }

  // ------------------------------------------------------------ questions

  showQuestion(id, question) {
    this.closeConfirm();
    this.planWarnings = 0;
    // The next question can arrive before the answer call to the previous one returns: note
    // that answer now, where it belongs (regression: the row "picked …" was lost).
    const pending = this.active?.pending;
    this.active?.card.el.remove();
    this.active = null;
    if (pending) this.log(pending.icon, pending.text);
    const card = buildCard(question, {
      skills: this.skills,
      total: this.steps.size || null,
      send: async (answer, logText) => {
        const sent = { icon: answerIcon(question, answer), text: logText };
        if (this.active?.id === id) this.active.pending = sent;
        try {
          await this.answer(id, answer);
        } catch (err) {
          if (this.active?.id === id) this.active.pending = null;
          throw err;
        }
        this.closeQuestion(id, sent.icon, sent.text);
      },
    });
    this.active = { id, card, question };
    this.logEl.append(card.el);
    this.renderStatus();
    card.focus();
  }

  /** Removes the card of question `id` (if it is the open one) and notes what happened. */
  closeQuestion(id, iconName, logText) {
    if (this.active?.id !== id) return;
    this.active.card.el.remove();
    this.active = null;
    this.log(iconName, logText);
    this.renderStatus();
  }

  /** Esc: closes edit mode or the cancel prompt, else asks to cancel. False when the run is over. */
  escape() {
    if (this.active?.card.escape()) return true;
    if (!this.confirmEl.hidden) {
      this.closeConfirm();
      this.focus();
      return true;
    }
    if (this.running) {
      this.askCancel();
      return true;
    }
    return false;
  }

  /** Keys other than Esc, while the run is live. */
  handleKey(e) {
    if (!this.running || !this.confirmEl.hidden) return false;
    return this.active?.card.handleKey(e) ?? false;
  }

  /** Focuses what Enter should act on. */
  focus() {
    if (!this.confirmEl.hidden) this.confirmEl.querySelector('button')?.focus();
    else this.active?.card.focus();
    return Boolean(this.active) || !this.confirmEl.hidden;
  }

  askCancel() {
    if (!this.running || this.cancelling) return;
    const yes = h('button.btn.danger.confirm-yes', { type: 'button', onClick: () => this.doCancel() }, 'Cancel run', h('kbd', '⏎'));
    const no = h('button.btn.ghost.confirm-no', { type: 'button', onClick: () => { this.closeConfirm(); this.focus(); } }, 'Keep going', h('kbd', 'Esc'));
    replace(this.confirmEl, icon('warning'), h('span', 'Cancel this run? Nothing will be written.'), h('span.spacer'), yes, no);
    this.confirmEl.hidden = false;
    yes.focus();
  }

  closeConfirm() {
    this.confirmEl.hidden = true;
    this.confirmEl.replaceChildren();
  }

  async doCancel() {
    this.closeConfirm();
    this.cancelling = true;
    this.cancelBtn.disabled = true;
    this.renderStatus();
    try {
      await this.cancel();
    } catch (err) {
      this.cancelling = false;
      this.cancelBtn.disabled = false;
      this.log('x', `Could not cancel: ${err.message}`, 'error');
      this.renderStatus();
    }
  }

  // ------------------------------------------------------------ end of run

  /** The run is over: stages still marked running become done (success) or stopped. */
  end(ok = true) {
    this.running = false;
    const settle = (info) => {
      if (info?.state === 'running') info.state = ok ? 'done' : 'stopped';
    };
    Object.values(this.globalStages).forEach(settle);
    for (const s of this.steps.values()) Object.values(s.stages).forEach(settle);
    this.renderPreplan();
    this.closeConfirm();
    this.active?.card.el.remove();
    this.active = null;
    this.cancelBtn.remove();
    this.el.dataset.state = 'done';
    for (const s of this.steps.values()) if (s.status === 'running') s.status = ok ? 'done' : 'failed';
    this.renderPlan();
  }

  /** run_request resolved with the RunReport. */
  finish(report) {
    this.end();
    const fin = this.finishedEvent ?? {};
    const committed = report?.committed ?? fin.committed ?? false;
    const dry = report?.dry_run ?? fin.dry_run ?? this.dryRun;
    const text = this.reportText ?? report?.text ?? fin.text ?? '';
    for (const rs of report?.steps ?? []) {
      const s = this.step(rs.step);
      if (rs.status === 'skipped' || rs.status === 'failed') s.status = rs.status;
      if (rs.summary && !s.summary) s.summary = rs.summary;
      this.renderStep(s);
    }
    const written = report?.applied_changes ? ` · ${report.applied_changes} changes written` : '';
    const [kind, title] = committed
      ? ['ok', `${this.kind === 'undo' ? 'Undone' : 'Committed'}${written}`]
      : dry
        ? ['info', 'Dry run · nothing was written']
        : ['muted', 'Nothing was written'];
    replace(
      this.outcomeEl,
      h(
        `section.outcome.${kind}`,
        h('header.outcome-head', icon(committed ? 'check' : 'spark'), h('span.outcome-title', title), fin.stage_ms && Object.keys(fin.stage_ms).length ? h('span.faint', totalMs(fin.stage_ms)) : null),
        text ? h('p.report-text', text) : null,
      ),
    );
    this.renderStatus('Done');
    this.outcomeEl.scrollIntoView({ block: 'nearest' });
  }

  /** run_request rejected. */
  fail(err) {
    this.end(false);
    if (err.code === 'CANCELLED') {
      replace(this.outcomeEl, h('section.outcome.muted.cancelled', h('header.outcome-head', icon('stop'), h('span.outcome-title', 'Cancelled — nothing was written.'))));
      this.renderStatus('Cancelled');
      return;
    }
    this.showError(err);
    this.renderStatus('Failed');
  }

  showError(err) {
    if (this.errorShown && this.errorShown.code === err.code) return;
    this.errorShown = err;
    replace(
      this.outcomeEl,
      h(
        'section.outcome.error.error-card',
        { role: 'alert' },
        h('header.outcome-head', icon('warning'), h('span.outcome-title', this.kind === 'undo' ? 'The undo failed' : 'The run failed'), h('span.badge.danger.error-code', err.code)),
        h('p.error-message', err.message),
      ),
    );
    this.outcomeEl.scrollIntoView({ block: 'nearest' });
  }

  // ------------------------------------------------------------ rendering

  log(iconName, text, kind = '') {
    const row = h(`div.log-row${kind ? `.${kind}` : ''}`, icon(iconName), h('span', text));
    if (this.active) this.logEl.insertBefore(row, this.active.card.el);
    else this.logEl.append(row);
  }

  /** The `undo_planned` event: how many changes turn back, which paths stay as they are and why, what cannot come back. */
  renderUndoPlan() {
    const ev = this.undoPlan;
    if (!ev) return;
    const kept = ev.kept ?? [];
    const lost = ev.not_restorable ?? [];
    replace(
      this.undoEl,
      h(
        'section.undo-plan',
        h('div.undo-plan-title', icon('undo'), h('span.undo-plan-text', undoPlannedText(ev))),
        kept.length
          ? h(
              'div.undo-plan-group.kept',
              h('span.undo-plan-label', `Kept as ${kept.length === 1 ? 'it is' : 'they are'}`),
              h(
                'ul',
                kept.map((k) => h('li.undo-kept', h('span.code.undo-path', { title: k.path }, k.path), h('span.undo-reason', ticked(k.reason)))),
              ),
            )
          : null,
        lost.length
          ? h(
              'div.undo-plan-group.lost',
              h('span.undo-plan-label', 'Not restorable'),
              h('ul', lost.map((line) => h('li.undo-lost', { title: line }, h('span.undo-lost-text', ticked(line))))),
            )
          : null,
      ),
    );
  }

  renderPreplan() {
    if (this.kind === 'undo') {
      this.preplanEl.hidden = true;
      this.tokensEl.remove();
      return;
    }
    if (this.planned) {
      this.preplanEl.hidden = true;
      this.tokensEl.remove();
      return;
    }
    const pre = STAGES.filter((s) => s.global && s.id !== 'commit');
    const thinking = this.running && this.globalStages.think?.state === 'running';
    this.tokensEl.classList.toggle('stopped', !thinking);
    replace(
      this.preplanEl,
      h(
        'div.preplan-row',
        pre.map((s) => {
          const st = this.globalStages[s.id]?.state ?? 'pending';
          const mark = st === 'running' ? h('span.spinner') : st === 'done' ? icon('check') : st === 'stopped' ? icon('x') : h('span.pre-dot');
          return h(`span.pre-stage.${st}`, mark, s.label);
        }),
      ),
      this.tokens ? this.tokensEl : null,
    );
    this.tokensText.scrollTop = this.tokensText.scrollHeight;
  }

  renderPlan() {
    if (!this.planned) return;
    replace(this.planEl, [...this.steps.values()].sort((a, b) => a.step - b.step).map((s) => this.stepRow(s)));
  }

  renderStep(s) {
    if (!this.planned) return;
    const old = this.planEl.querySelector(`[data-step="${s.step}"]`);
    const row = this.stepRow(s);
    if (old) old.replaceWith(row);
    else this.renderPlan();
  }

  stepRow(s) {
    const segs = STAGES.map((st) => {
      const info = st.global ? this.globalStages[st.id] : s.stages[st.id];
      const state = info?.state ?? 'pending';
      return h(`span.seg.${state}`, { title: `${st.label}${info?.ms !== undefined ? ` · ${fmtMs(info.ms)}` : ''}`, dataset: { stage: st.id } });
    });
    const marker =
      s.status === 'running' ? h('span.spinner') : STATUS_ICON[s.status] ? icon(STATUS_ICON[s.status]) : h('span.step-num', String(s.step));
    return h(
      'li.step',
      { dataset: { step: String(s.step), status: s.status } },
      h('span.step-marker', marker),
      h(
        'div.step-main',
        h('div.step-desc', { title: s.description }, s.description || `Step ${s.step}`),
        h('div.step-meta', s.skill ? skillChip(this.skills, s.skill, s.tool) : null, s.summary ? h('span.step-summary', { title: s.summary }, s.summary) : null),
      ),
      h('div.stepper', { 'aria-label': `Stages of step ${s.step}` }, segs),
    );
  }

  renderStatus(final) {
    let text;
    let spin = this.running;
    if (final) {
      text = final;
      spin = false;
    } else if (this.cancelling) text = 'Cancelling…';
    else if (this.active) {
      text = this.active.question.type === 'review_diff' ? 'Waiting for your review' : 'Waiting for you';
      spin = false;
    } else if (this.commitProgress && (this.kind === 'undo' || this.current?.stage === 'commit')) text = `Writing ${this.commitProgress.done}/${this.commitProgress.total}`;
    else if (this.kind === 'undo') text = this.undoPlan ? 'Preparing the review…' : 'Planning the undo…';
    else if (this.current) {
      const n = this.steps.size;
      const where = this.current.step ? `Step ${this.current.step}/${n || '?'} · ` : '';
      text = `${where}${stageLabel(this.current.stage)}`;
    } else text = 'Starting…';
    replace(this.statusEl, spin ? h('span.spinner') : null, h('span.status-text', text));
  }
}

function answerIcon(question, answer) {
  if (answer === null) return 'skip';
  if (answer?.decision === 'roll_back' || answer?.decision === 'roll_back_to') return 'undo';
  if (answer?.decision === 'discard') return 'x';
  if (answer?.decision === 'override') return 'edit';
  return 'check';
}

/** The last TOKEN_TAIL characters of `text` (not starting inside a surrogate pair). */
function tail(text) {
  if (text.length <= TOKEN_TAIL) return text;
  const t = text.slice(-TOKEN_TAIL);
  return /^[\uDC00-\uDFFF]/.test(t) ? t.slice(1) : t;
}

function totalMs(stageMs) {
  const sum = Object.values(stageMs).reduce((a, b) => a + (Number(b) || 0), 0);
  return fmtMs(sum);
}
