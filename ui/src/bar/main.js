// Spotlight bar window: the request input, agents, the approval inbox, recent requests (with Undo and "Save as workflow"), suggested workflows, an interrupted commit to finish, window links, keyboard.
import '../styles/base.css';
import './bar.css';
import './cards.css';
import { api, on, channel, EVENTS } from '../ipc.js';
import { h, replace, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { loadSkills } from '../lib/skills.js';
import { History } from './history.js';
import { Inbox } from './inbox.js';
import { RunView } from './run-view.js';
import { Recovery } from './recovery.js';

const state = {
  phase: 'idle', // idle | running | done
  run: null,
  agents: [],
  agent: null,
  skills: [],
  info: null,
};

// ---------------------------------------------------------------- layout

const input = h('input#request.request-input', {
  type: 'text',
  placeholder: 'What should I do with your files?',
  autocomplete: 'off',
  spellcheck: 'false',
  'aria-label': 'Request',
});
const phaseEl = h('span.input-hint', h('kbd', '⏎'), ' run');
const agentsEl = h('div.agents', { role: 'listbox', 'aria-label': 'Agents', 'aria-orientation': 'horizontal' });
const recovery = new Recovery({ onFinished: () => loadLists() });
const viewEl = h('div.results-view');
// An interrupted commit comes first, above the recent list or the run.
const results = h('main.results', { tabindex: '-1' }, recovery.el, viewEl);
const rootEl = h('span.root-path');
const warnEl = h('span.shortcut-warning', { hidden: true });
const dryRun = h('input#dry-run', { type: 'checkbox' });
const history = new History({ onPick: pickRequest, onUndo: startUndo });
const inbox = new Inbox({ onApprove: startApproval, onCount: showInboxCount, onEmptied: () => input.focus(), openWindow });
// The inbox's count stays in the footer, in view during a run too.
const inboxCountEl = h('span.inbox-count');
const inboxButton = h(
  'button.btn.ghost.small.open-inbox',
  { type: 'button', hidden: true, title: 'Changes from watched folders, waiting for your approval', onClick: () => showInbox() },
  icon('inbox'),
  'Inbox ',
  inboxCountEl,
);

function navButton(label, text, iconName, key) {
  return h(
    `button.btn.ghost.small.open-${label}`,
    { type: 'button', title: `Open ${text}`, onClick: () => openWindow(label), dataset: { window: label } },
    icon(iconName),
    text,
    key ? h('kbd', key) : null,
  );
}

const app = h(
  'div.panel',
  h('header.search', icon('search', 'search-icon'), input, phaseEl),
  agentsEl,
  results,
  h(
    'footer.footer',
    h('span.root', icon('folder'), rootEl),
    warnEl,
    h('span.spacer'),
    h('label.toggle', { title: 'Simulate only; nothing is written' }, dryRun, h('span.toggle-track'), 'Dry run'),
    inboxButton,
    navButton('graph', 'Graph', 'graph'),
    navButton('editor', 'Skills', 'puzzle'),
    navButton('settings', 'Settings', 'gear'),
  ),
);
document.getElementById('app').replaceWith(app);

// ---------------------------------------------------------------- data

async function loadInfo() {
  try {
    state.info = await api.appInfo();
  } catch (err) {
    state.info = null;
    rootEl.textContent = `App info unavailable (${err.code})`;
    return;
  }
  const { root, shortcut, shortcut_error: shortcutError } = state.info;
  rootEl.textContent = root ?? 'No working folder — choose one in Settings';
  rootEl.title = root ?? '';
  rootEl.classList.toggle('unset', !root);
  warnEl.hidden = !shortcutError;
  if (shortcutError) {
    replace(warnEl, icon('warning'), `${shortcut ?? 'Shortcut'} unavailable`);
    warnEl.title = shortcutError;
  }
}

async function loadAgents() {
  try {
    state.agents = (await api.agents()) ?? [];
  } catch {
    state.agents = [];
  }
  state.agent = (state.agents.find((a) => a.default) ?? state.agents[0])?.id ?? null;
  renderAgents();
}

function renderAgents() {
  agentsEl.hidden = state.agents.length === 0;
  replace(
    agentsEl,
    state.agents.map((a) =>
      h(
        'button.agent',
        {
          type: 'button',
          role: 'option',
          'aria-selected': String(a.id === state.agent),
          tabindex: a.id === state.agent ? '0' : '-1',
          title: a.description ?? '',
          dataset: { agent: a.id },
          onClick: () => selectAgent(a.id, true),
        },
        h('span.agent-name', a.name),
        h('span.agent-count', `${a.skills} skills`),
      ),
    ),
    h('span.agents-hint', state.agents.length > 1 ? 'Tab · ← → to switch agent' : ''),
  );
}

function selectAgent(id, focus = false) {
  state.agent = id;
  renderAgents();
  if (focus) agentsEl.querySelector(`[data-agent="${CSS.escape(id)}"]`)?.focus();
}

agentsEl.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowUp') {
    e.preventDefault();
    input.focus();
    return;
  }
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    results.querySelector('button')?.focus();
    return;
  }
  if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key) || !state.agents.length) return;
  e.preventDefault();
  const ids = state.agents.map((a) => a.id);
  let i = ids.indexOf(state.agent);
  if (e.key === 'Home') i = 0;
  else if (e.key === 'End') i = ids.length - 1;
  else if (e.key === 'ArrowLeft') i = (i - 1 + ids.length) % ids.length;
  else i = (i + 1) % ids.length;
  selectAgent(ids[i], true);
});

// ---------------------------------------------------------------- idle view

function showIdle() {
  replace(viewEl, inbox.el, history.el);
}

/** The idle view's lists: the inbox and the recent requests (each one fails on its own). */
function loadLists() {
  return Promise.allSettled([inbox.load(), history.load()]);
}

/** The footer's "Inbox N": hidden while nothing waits. */
function showInboxCount(n) {
  inboxButton.hidden = !n;
  inboxCountEl.textContent = String(n);
  inboxButton.setAttribute('aria-label', `Inbox: ${plural(n, 'item')} waiting for your approval`);
}

/** The footer's badge: back to the idle view, on the first item (a run going on keeps the view). */
function showInbox() {
  if (state.phase === 'running') {
    state.run?.focus();
    return;
  }
  if (state.phase === 'done') setPhase('idle');
  if (!inbox.focus()) input.focus();
}

function pickRequest(text) {
  input.value = text;
  history.resetRecall();
  if (state.phase === 'done') setPhase('idle');
  input.focus();
  input.setSelectionRange(text.length, text.length);
}

function setPhase(phase) {
  state.phase = phase;
  document.documentElement.dataset.phase = phase;
  input.readOnly = phase === 'running';
  inboxButton.setAttribute('aria-disabled', String(phase === 'running'));
  inboxButton.title = phase === 'running' ? 'Changes from watched folders wait until this run ends' : 'Changes from watched folders, waiting for your approval';
  if (phase === 'idle') {
    state.run = null;
    showIdle();
  }
  replace(phaseEl, phase === 'running' ? h('span.spinner') : [h('kbd', '⏎'), ' run']);
}

// ---------------------------------------------------------------- running

function startRun(text) {
  const dry = dryRun.checked;
  return drive({ request: text, dryRun: dry }, (onEvent) => api.runRequest({ request: text, dryRun: dry, hitl: null, onEvent }));
}

/** "Undo" of a recent request: undo_run in the same run view (its diff review is a question like a run's). */
function startUndo(item, committed) {
  if (state.phase === 'running') return;
  const runId = committed?.id ?? item.run_id;
  return drive({ request: `Undo “${item.request}”`, dryRun: false, kind: 'undo' }, (onEvent) => api.undoRun({ runId, dryRun: false, onEvent }));
}

/** "Approve…" of an inbox item: inbox_approve runs its request now, in the same run view; the person reviews its diff there and commits. */
function startApproval(item) {
  if (state.phase === 'running') return;
  return drive({ request: item.request, dryRun: false, kind: 'inbox' }, (onEvent) => api.inboxApprove({ id: item.id, onEvent }));
}

/** The graph's "Undo this run" (`undo://requested`): the same undo, titled by the recent list's entry when it has one. */
function undoRequested(p) {
  if (!p?.run_id) return;
  const item = history.items.find((i) => i.run_id === p.run_id) ?? { run_id: p.run_id, request: p.request || p.run_id };
  startUndo(item, history.runOf(item));
}

/** Shows a RunView, feeds it the channel `invoke(onEvent)` streams on, and settles it with the result. */
async function drive({ request, dryRun: dry, kind = 'run' }, invoke) {
  history.resetRecall();
  recovery.clearNotice();
  setPhase('running');
  const run = new RunView({
    request,
    dryRun: dry,
    kind,
    skills: state.skills,
    answer: (id, answer) => api.answer(id, answer),
    cancel: () => api.cancelRun(),
  });
  state.run = run;
  replace(viewEl, run.el);
  const onEvent = channel((msg) => {
    if (state.run === run) run.onMessage(msg);
  });
  try {
    run.finish(await invoke(onEvent));
  } catch (err) {
    run.fail(err);
    // The folder holds an interrupted commit: its card says what to do.
    if (err.code === 'PENDING_JOURNAL') recovery.check();
  }
  if (state.run === run) {
    setPhase('done');
    input.focus();
    input.select();
  }
  loadLists();
}

// ---------------------------------------------------------------- keyboard

input.addEventListener('keydown', (e) => {
  if (e.isComposing) return;
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    e.stopPropagation();
    if (state.phase === 'running') {
      state.run?.focus();
      return;
    }
    const text = input.value.trim();
    if (text) startRun(text);
    return;
  }
  if (state.phase === 'running') return;
  if (e.key === 'ArrowUp' && (input.value === '' || history.recalling)) {
    const text = history.recall(+1);
    if (text !== null) {
      e.preventDefault();
      input.value = text;
      input.setSelectionRange(text.length, text.length);
    }
  } else if (e.key === 'ArrowDown' && history.recalling) {
    e.preventDefault();
    input.value = history.recall(-1) ?? '';
  }
});

input.addEventListener('input', () => {
  history.resetRecall();
  // Typing after a finished run starts over: the recent list comes back.
  if (state.phase === 'done') setPhase('idle');
});

document.addEventListener('keydown', (e) => {
  if (e.isComposing) return;
  if (e.key === 'Escape') {
    e.preventDefault();
    if (state.run?.escape()) return;
    hideBar();
    return;
  }
  if (state.phase === 'running' && state.run?.handleKey(e)) e.preventDefault();
});

function hideBar() {
  api.hideBar().catch(() => {});
}

function openWindow(label) {
  api.openWindow(label).catch((err) => console.warn('open_window', err));
}

/** Puts the focus where typing or Enter should go. */
function focusDefault() {
  if (state.phase === 'running' && state.run?.focus()) return;
  input.focus();
  input.select();
}

/** The bar is shown again: put the focus back, and look for an interrupted commit again. */
function onShown() {
  focusDefault();
  if (state.phase !== 'running') recovery.check();
}

window.addEventListener('focus', onShown);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') onShown();
});

// ---------------------------------------------------------------- start

setPhase('idle');
input.focus();
recovery.check();
loadInfo();
loadAgents();
loadLists();
loadSkills().then((s) => {
  state.skills = s;
});
on(EVENTS.graphChanged, (p) => {
  if (p?.reason !== 'root') return;
  loadInfo();
  recovery.check(); // another working folder: its own interrupted commit, or none
});
// A model planner's output as it writes the plan (the run view keeps only its own run's tokens).
on(EVENTS.pipelineToken, (p) => state.run?.onToken(p));
on(EVENTS.skillsChanged, () => loadSkills(true).then((s) => (state.skills = s)));
on(EVENTS.undoRequested, undoRequested);
// A watched folder was handled, or an item approved or discarded (here or elsewhere): the inbox again.
on(EVENTS.inboxChanged, (p) => inbox.changed(p));
