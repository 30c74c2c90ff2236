// Graph side panel, part 2: the action history — one rollback point per graph_delta, "Roll back to here" while the run is live.
import { api } from '../ipc.js';
import { h, replace, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { opsOf, groupOps, countsText } from '../lib/ops.js';
import { skillColor, isDestructiveTool } from '../lib/skills.js';

/** Events after which no rollback point can be used any more (the final review is over). */
const CLOSING = new Set(['diff_reviewed', 'report', 'committed', 'finished', 'failed']);

export class ActionHistory {
  /**
   * @param {(step:number) => string|null} skillOf  the skill that ran a step
   * @param {(step:number) => string|null} [toolOf]  its tool (a destructive one marks the point)
   */
  constructor(skillOf, toolOf = () => null) {
    this.skillOf = skillOf;
    this.toolOf = toolOf;
    this.skills = [];
    this.items = [];
    this.committed = false;
    this.runId = null;
    // The graph window gets no questions: rollback points are usable while the run is going and its
    // final review is not over (the engine still refuses with NOT_AT_REVIEW before the review opens).
    this.live = false;
    this.ended = null; // 'committed' | 'finished' | 'failed' once the run is over
    this.el = h('section.side-section.actions');
    this.render();
  }

  reset(runId = null, live = false) {
    this.items = [];
    this.committed = false;
    this.runId = runId;
    this.live = live;
    this.ended = null;
    this.render();
  }

  onEvent(ev, runId = null) {
    // A new run (or one this window joined after its `request`) starts a fresh history.
    if (ev.event === 'request' || (runId && this.runId && runId !== this.runId)) this.reset(runId, true);
    else if (runId && !this.runId) this.runId = runId;
    if (CLOSING.has(ev.event)) {
      this.live = false;
      if (ev.event === 'failed') this.ended = 'failed';
      else if (ev.event === 'committed' || ev.committed) this.ended = 'committed';
      else this.ended ??= 'finished';
    } else if (!this.ended) {
      this.live = true;
    }
    if (this.ended === 'committed') this.committed = true;
    switch (ev.event) {
      case 'request':
        return;
      case 'graph_delta': {
        const ops = opsOf(ev);
        // A step run again (params overridden) replaces its earlier entry.
        this.items = this.items.filter((i) => i.step !== ev.step);
        this.items.push({ step: ev.step, snapshot: ev.snapshot, ops, n: ops.length || ev.changes?.length || 0, undone: false });
        this.items.sort((a, b) => a.step - b.step);
        break;
      }
      case 'rolled_back':
        for (const i of this.items) if (i.step >= ev.step) i.undone = true;
        break;
      default:
        if (!CLOSING.has(ev.event)) return;
        break;
    }
    this.render();
  }

  async rollBack(item, button) {
    button.disabled = true;
    try {
      await api.rollbackTo(item.snapshot);
      toast(`Rolled back to ${item.snapshot}: step ${item.step} and later undone`, 'ok');
    } catch (err) {
      const text =
        err.code === 'NOT_AT_REVIEW'
          ? 'Roll back is possible while the final review is open in the bar.'
          : `${err.code}: ${err.message}`;
      toast(text, 'error', 5000);
    } finally {
      button.disabled = !this.live || item.undone;
    }
  }

  render() {
    replace(
      this.el,
      h(
        'header.side-head',
        h('h2', 'Action history'),
        this.committed ? h('span.badge.ok', 'Committed') : this.ended === 'failed' ? h('span.badge.danger', 'Failed') : this.ended ? h('span.badge.muted', 'Closed') : null,
      ),
      this.ended && this.items.length ? h('p.faint.actions-note', 'The run is over: these rollback points can no longer be used.') : null,
      this.items.length
        ? h(
            'ol.history-points',
            this.items.map((item) => {
              const skill = this.skillOf(item.step);
              const button = h(
                'button.btn.small.rollback-here',
                {
                  type: 'button',
                  title: this.live
                    ? `Undo step ${item.step} and every later step (${item.snapshot}) — while the final review is open`
                    : 'The run is over',
                  disabled: !this.live || item.undone,
                },
                icon('undo'),
                'Roll back to here',
              );
              button.addEventListener('click', () => this.rollBack(item, button));
              const counts = countsText(groupOps(item.ops));
              const tool = this.toolOf(item.step);
              const destructive = Boolean(skill && tool && isDestructiveTool(this.skills, skill, tool));
              return h(
                `li.point${item.undone ? '.undone' : ''}${destructive ? '.destructive' : ''}`,
                { dataset: { snapshot: item.snapshot, step: String(item.step) }, style: { '--skill': skillColor(this.skills, skill) } },
                h('span.point-rail', h('span.dot')),
                h(
                  'div.point-main',
                  h(
                    'div.point-title',
                    h('span.point-step', `Step ${item.step}`),
                    destructive ? h('span.tag.destructive-tag', { title: `${skill} / ${tool} is a destructive tool` }, 'destructive') : null,
                    skill ? h('span.point-skill.faint', { title: skill }, `· ${skill}`) : null,
                  ),
                  h('div.point-meta.faint', h('span.code', item.snapshot), ` · ${item.n} change${item.n === 1 ? '' : 's'}`, counts && item.n ? ` (${counts})` : ''),
                ),
                button,
              );
            }),
          )
        : h('p.faint.side-empty', 'Each simulated step becomes a rollback point here.'),
    );
  }
}
