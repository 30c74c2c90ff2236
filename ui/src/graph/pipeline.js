// Graph side panel, part 1: the pipeline of the current run — plan steps, matched skill, score and runner-ups, stage, "Undo this run" once committed.
import { h, replace } from '../lib/dom.js';
import { stageLabel, isGlobalStage } from '../lib/stages.js';
import { icon } from '../lib/icons.js';
import { skillColor, skillIconName, toolLabel } from '../lib/skills.js';
import { undoPlannedText } from '../lib/undo.js';

function bar(score, color) {
  return h('span.score', { style: { '--skill': color } }, h('span', { style: { width: `${Math.round(Math.max(0, Math.min(1, score ?? 0)) * 100)}%` } }));
}

/** What happened at a near-miss, in words (the event's `by` is person | person_or_auto). */
function nearMissNote(n) {
  if (n.none) return 'Unsure match · step skipped';
  return n.planned ? 'Unsure match · the planned skill was kept' : 'Unsure match · another skill was picked';
}

export class Pipeline {
  /** @param {{ onUndo?: (runId:string, request:string) => void }} [o]  "Undo this run" of a committed run (not a dry run) */
  constructor({ onUndo } = {}) {
    this.skills = [];
    this.onUndo = onUndo;
    this.el = h('section.side-section.pipeline');
    this.reset(null);
  }

  reset(runId) {
    this.runId = runId;
    this.request = '';
    this.undo = null; // an undo_run's plan, in words (an undo has no steps)
    this.learned = []; // the planner's notes on what it learned from the person's earlier choices
    this.steps = new Map();
    this.current = null;
    this.state = runId ? 'running' : 'idle';
    this.dryRun = false;
    this.render();
  }

  step(n) {
    if (n === null || n === undefined) return null;
    if (!this.steps.has(n)) this.steps.set(n, { step: n, status: 'pending', runnerUps: [] });
    return this.steps.get(n);
  }

  /** The step's skill (for highlight colours). */
  skillOf(n) {
    return this.steps.get(n)?.skill ?? null;
  }

  /** The step's tool (with skillOf: its vis.json entry). */
  toolOf(n) {
    return this.steps.get(n)?.tool ?? null;
  }

  onEvent(ev, runId) {
    if (ev.event === 'request' || (runId && this.runId && runId !== this.runId)) this.reset(runId ?? ev.id ?? null);
    if (!this.runId && runId) this.runId = runId;
    if (this.state === 'idle') this.state = 'running';
    const s = this.step(ev.step);
    switch (ev.event) {
      case 'request':
        this.request = ev.text;
        break;
      case 'undo_planned':
        this.undo = undoPlannedText(ev);
        break;
      case 'stage_started':
        this.current = { stage: ev.stage, step: ev.step };
        if (s && !isGlobalStage(ev.stage) && s.status === 'pending') s.status = 'running';
        break;
      case 'planned':
        for (const p of ev.plan?.steps ?? []) Object.assign(this.step(p.step), { description: p.description, skill: p.skill, tool: p.tool, params: p.params ?? {} });
        this.learned = (ev.notes ?? []).filter((n) => n.startsWith('learned from your choice'));
        break;
      case 'references_resolved':
      case 'overridden':
        // The params the tool gets (references filled in, or as the person edited them): the label follows them.
        if (s && ev.params) s.params = ev.params;
        break;
      case 'skill_matched':
        if (s) Object.assign(s, { skill: ev.skill, tool: ev.tool, score: ev.score, confident: ev.confident, runnerUps: ev.runner_ups ?? [] });
        break;
      case 'near_miss': {
        if (!s) break;
        const chosen = typeof ev.chosen === 'number' ? ev.candidates?.[ev.chosen] : ev.chosen;
        s.nearMiss = { by: ev.by, planned: Boolean(chosen?.planned), candidates: ev.candidates ?? [] };
        if (chosen?.skill) Object.assign(s, { skill: chosen.skill, tool: chosen.tool, score: chosen.score ?? s.score });
        else s.nearMiss.none = true;
        break;
      }
      case 'dispatched':
        if (s) Object.assign(s, { summary: ev.ok ? ev.summary : ev.error?.message ?? 'failed', status: ev.ok ? 'done' : 'failed', ms: ev.ms });
        if (s && ev.params) s.params = ev.params;
        break;
      case 'skipped':
        if (s) Object.assign(s, { status: 'skipped', summary: ev.reason ?? ev.code });
        break;
      case 'rolled_back':
        for (const st of this.steps.values()) if (st.step >= ev.step && st.status !== 'pending') st.status = 'rolled_back';
        break;
      case 'failed':
        this.state = 'failed';
        this.error = `${ev.code}: ${ev.message}`;
        break;
      case 'finished':
        this.state = ev.committed ? 'committed' : 'done';
        this.dryRun = Boolean(ev.dry_run);
        this.current = null;
        break;
      default:
        break;
    }
    this.render();
  }

  render() {
    const badge = {
      idle: ['muted', 'Idle'],
      running: ['info', 'Running'],
      done: ['muted', 'Done'],
      committed: ['ok', 'Committed'],
      failed: ['danger', 'Failed'],
    }[this.state];
    const n = this.steps.size;
    const current = this.current
      ? `${this.current.step ? `Step ${this.current.step}/${n || '?'} · ` : ''}${stageLabel(this.current.stage)}`
      : this.state === 'idle'
        ? 'Start a request in the bar to follow it here.'
        : '';
    replace(
      this.el,
      h('header.side-head', h('h2', 'Pipeline'), h(`span.badge.${badge[0]}.pipeline-state`, badge[1])),
      this.request ? h('div.pipeline-request', { title: this.request }, this.request) : null,
      this.undo ? h('div.pipeline-undo', icon('undo'), h('span', this.undo)) : null,
      ...this.learned.map((n) => h('div.pipeline-learned', { title: 'scope-weaver learned --forget ID forgets it' }, icon('spark'), h('span', n.charAt(0).toUpperCase() + n.slice(1)))),
      current && this.state !== 'idle' ? h('div.pipeline-stage', current) : null,
      this.state === 'idle' ? h('p.faint.side-empty', current) : null,
      this.error && this.state === 'failed' ? h('div.pipeline-error', this.error) : null,
      this.undoEl(),
      n
        ? h(
            'ol.psteps',
            [...this.steps.values()].sort((a, b) => a.step - b.step).map((s) => this.stepEl(s)),
          )
        : null,
    );
  }

  /** "Undo this run" under a committed run (an undo's run too: undoing it redoes the run), else nothing. */
  undoEl() {
    if (this.state !== 'committed' || this.dryRun || !this.runId || !this.onUndo) return null;
    const runId = this.runId;
    const request = this.request;
    return h(
      'div.pipeline-actions',
      h(
        'button.btn.small.pipeline-undo-run',
        { type: 'button', title: 'Undo this run in the bar (its changes are reviewed there first)', onClick: () => this.onUndo(runId, request) },
        icon('undo'),
        'Undo this run',
      ),
    );
  }

  /** The runner-ups with score bars, or (`full` false) one line: the best of them and how many more. */
  runnerUpsEl(list, full) {
    const ul = h(
      `ul.runnerups${full ? '' : '.compact'}`,
      list.map((r) =>
        h(
          'li',
          { title: `${r.skill} / ${r.tool}` },
          h('span.ru-name', r.skill, h('span.faint', ` / ${r.tool}`)),
          bar(r.score, skillColor(this.skills, r.skill)),
          h('span.code.faint', (r.score ?? 0).toFixed(2)),
        ),
      ),
    );
    if (full) return ul;
    const all = list.map((r) => `${r.skill} / ${r.tool}  ${(r.score ?? 0).toFixed(2)}`).join('\n');
    return h('div.ru-compact', { title: `Runner-ups:\n${all}` }, h('span.ru-label', 'runner-up'), ul, list.length > 1 ? h('span.ru-more', `+${list.length - 1}`) : null);
  }

  /** The skill's vis.json icon and the tool's label with the step's params ("Remove duplicates (keep newest)"). */
  actionEl(s, color) {
    const name = skillIconName(this.skills, s.skill);
    const label = (s.tool && toolLabel(this.skills, s.skill, s.tool, s.params)) || s.tool || s.skill;
    return h(
      'div.pstep-action',
      { style: { '--skill': color } },
      h('span.pstep-icon', { dataset: { icon: name }, title: s.skill }, icon(name)),
      h('span.pstep-label', { title: label }, label),
    );
  }

  stepEl(s) {
    const color = skillColor(this.skills, s.skill);
    const active = this.current?.step === s.step;
    // Runner-ups in full for the step being worked on (or a doubtful match), one compact line otherwise.
    const full = active || s.confident === false || Boolean(s.nearMiss);
    return h(
      `li.pstep${active ? '.active' : ''}`,
      { dataset: { step: String(s.step), status: s.status } },
      h('div.pstep-head', h('span.pstep-num', String(s.step)), h('span.pstep-desc', { title: s.description ?? '' }, s.description ?? `Step ${s.step}`)),
      s.skill ? this.actionEl(s, color) : null,
      s.skill
        ? h(
            'div.pstep-match',
            { style: { '--skill': color } },
            h('span.dot'),
            h('span.pstep-skill', { title: `${s.skill} / ${s.tool}` }, s.skill, h('span.faint', ` / ${s.tool}`)),
            s.score !== undefined ? bar(s.score, color) : h('span'),
            h('span.pstep-score.code', s.score !== undefined ? s.score.toFixed(2) : ''),
          )
        : null,
      s.runnerUps?.length ? this.runnerUpsEl(s.runnerUps.slice(0, 3), full) : null,
      s.confident === false || s.nearMiss
        ? h('div.pstep-note.warn', s.nearMiss ? nearMissNote(s.nearMiss) : 'Low confidence')
        : null,
      s.summary ? h(`div.pstep-note${s.status === 'failed' ? '.error' : ''}`, { title: s.summary }, s.summary) : null,
    );
  }
}
