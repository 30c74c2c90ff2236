// Settings window: working folder, planner/embedder backends and model files (rule planner first), HITL mode, shortcut, drop folder, watched folders; model progress (Cancel loading while a model loads).
import '../styles/base.css';
import './settings.css';
import { api, on, EVENTS } from '../ipc.js';
import { h, replace } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { Watches } from './watches.js';

let current = null;
let info = null; // app_info(): `root` is the folder the engine works on now

// ---------------------------------------------------------------- fields

function textField(id, placeholder) {
  return h(`input.field#${id}`, { type: 'text', placeholder, spellcheck: 'false', autocomplete: 'off' });
}

function segmented(name, options) {
  return h(
    'div.segmented',
    { role: 'radiogroup', 'aria-label': name },
    options.map(([value, label]) =>
      h('label.seg-option', h('input', { type: 'radio', name, value }), h('span', label)),
    ),
  );
}

function radioValue(name) {
  return document.querySelector(`input[name="${name}"]:checked`)?.value ?? null;
}

/** Marks the label of the checked radio with `.checked` (instead of `:has()` in CSS). */
function syncChecked(name) {
  for (const r of document.querySelectorAll(`input[name="${name}"]`)) r.closest('label')?.classList.toggle('checked', r.checked);
}

function setRadio(name, value) {
  for (const r of document.querySelectorAll(`input[name="${name}"]`)) r.checked = r.value === value;
  syncChecked(name);
}

document.addEventListener('change', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type === 'radio') syncChecked(e.target.name);
});

const ROOT_PLACEHOLDER = '/home/you';
const root = textField('working-root', ROOT_PLACEHOLDER);
const inUseEl = h('div.in-use', { hidden: true });
const plannerModel = textField('planner-model', 'Path to a .gguf file or a model folder');
// Only meaningful with a planner model: the rule planner's plan when it is sure, the model's otherwise.
const rulesFirst = h('input#rules-first', { type: 'checkbox', 'aria-describedby': 'rules-first-hint' });
const embedderModel = textField('embedder-model', 'Folder holding the model files');
const dropFolder = textField('drop-folder', 'No drop folder');
dropFolder.setAttribute('aria-describedby', 'drop-note'); // what a task file is
const shortcut = textField('shortcut', 'Alt+Space');
const configFile = h('span.code.config-file');
const errorsEl = h('div.errors', { role: 'alert', hidden: true });
const statusEl = h('span.save-status', { role: 'status', 'aria-live': 'polite' });
const progressList = h('ul.progress-list', { 'aria-label': 'Model loading' });
// Shown while a model loads: model_load_cancel stops waiting for it (the models in use stay).
const cancelNote = h('span.hint.load-cancel-note');
const cancelBtn = h('button.btn.small.load-cancel-btn', { type: 'button', onClick: () => cancelLoading() }, icon('stop'), 'Cancel loading');
const cancelRow = h('div.load-cancel', { hidden: true }, cancelNote, cancelBtn);
const modelsEl = h('span.model-summary');
const latest = {};
const saveBtn = h('button.btn.primary.save', { type: 'submit' }, 'Save', h('kbd', 'Ctrl S'));
// Watched folders are saved by their own commands at once, not by Save.
const watches = new Watches();

async function choose(input, picker) {
  try {
    const path = await picker();
    if (path) {
      input.value = path;
      input.dispatchEvent(new Event('input'));
    }
  } catch (err) {
    setStatus(`${err.code}: ${err.message}`, 'error');
  }
}

const chooseBtn = (input, picker, label, text = 'Choose…') =>
  h('button.btn.choose', { type: 'button', onClick: () => choose(input, picker), 'aria-label': label }, icon('folder'), text);

function row(label, hint, ...control) {
  return h('div.row', h('div.row-label', h('span.label', label), hint ? h('span.hint', hint) : null), h('div.row-control', ...control));
}

const hitlOptions = [
  ['all', 'Every step', 'Approve each step before the next runs.'],
  ['key', 'Key steps', 'Approve steps that change files; read-only steps just run.'],
  ['bypass', 'No approvals', 'Only the final review before anything is written.'],
];

const form = h(
  'form.settings',
  { novalidate: true, onSubmit: (e) => { e.preventDefault(); save(); } },
  h('header.s-head', h('h1', icon('gear'), 'Settings'), h('span.faint', 'Saved to ', configFile)),
  h(
    'div.s-body',
    h(
      'section.group',
      h('h2', 'Files'),
      row('Working folder', 'The folder the agent may read and change.', h('div.path-row', root, chooseBtn(root, () => api.pickFolder(), 'Choose working folder')), inUseEl),
    ),
    h(
      'section.group',
      h('h2', 'Models'),
      row('Planner', 'Turns requests into plans.', segmented('planner', [['rule', 'Rule-based'], ['mistralrs', 'Local LLM (mistral.rs)']])),
      row(
        'Planner model',
        'A GGUF file or a safetensors model folder, used with the local LLM.',
        h(
          'div.path-row.planner-model',
          plannerModel,
          chooseBtn(plannerModel, () => api.pickFile([{ name: 'GGUF model', extensions: ['gguf'] }]), 'Choose planner GGUF file', 'File…'),
          chooseBtn(plannerModel, () => api.pickFolder(), 'Choose planner model folder', 'Folder…'),
        ),
        h(
          'label.check-option.rules-first-option',
          rulesFirst,
          h(
            'span.check-text',
            h('span.check-label', 'Rule planner first'),
            h('span.hint#rules-first-hint', 'The built-in rule planner plans each request (fast); where it read part of a request more than one way, the model chooses between those readings.'),
          ),
        ),
      ),
      row('Embedder', 'Matches plan steps to skills.', segmented('embedder', [['words', 'Built in'], ['lexical', 'Lexical'], ['bert', 'BERT'], ['mistralrs', 'mistral.rs']])),
      row(
        'Embedder model',
        'A model folder, for BERT or mistral.rs.',
        h('div.path-row.embedder-model', embedderModel, chooseBtn(embedderModel, () => api.pickFolder(), 'Choose embedder model folder')),
      ),
      row('Model loading', 'Progress after saving.', progressList, cancelRow),
    ),
    h(
      'section.group',
      h('h2', 'Approvals & shortcut'),
      row(
        'Ask me',
        null,
        h(
          'div.hitl',
          { role: 'radiogroup', 'aria-label': 'Approval mode' },
          hitlOptions.map(([value, label, hint]) =>
            h('label.hitl-option', h('input', { type: 'radio', name: 'hitl', value }), h('span.hitl-text', h('span.hitl-label', label), h('span.hint', hint))),
          ),
        ),
      ),
      row('Shortcut', 'Shows the bar from anywhere.', shortcut),
    ),
    h(
      'section.group.drop',
      { 'aria-labelledby': 'drop-title' },
      h('h2#drop-title', 'Task files'),
      row(
        'Drop folder',
        'An absolute folder the app takes task files from. Empty: none.',
        h('div.path-row.drop-folder', dropFolder, chooseBtn(dropFolder, () => api.pickFolder(), 'Choose drop folder')),
        h(
          'p.hint.drop-note#drop-note',
          'A task file is a JSON file like ',
          h('span.code', '{"request": "tidy up", "root": "/abs/folder"}'),
          ', one tool call or a plan; changes wait in the bar’s inbox; NAME.answer.json answers it.',
        ),
      ),
    ),
    watches.el,
    errorsEl,
  ),
  h('footer.s-foot', statusEl, modelsEl, h('span.spacer'), h('button.btn.ghost', { type: 'button', onClick: () => load() }, 'Revert'), saveBtn),
);
document.getElementById('app').replaceWith(h('div.swin', form, watches.form));

// ---------------------------------------------------------------- behaviour

function syncEnabled() {
  const plannerOn = radioValue('planner') === 'mistralrs';
  const embedderOn = ['bert', 'mistralrs'].includes(radioValue('embedder'));
  for (const el of form.querySelectorAll('.planner-model input, .planner-model button')) el.disabled = !plannerOn;
  // Rule planner first only matters when a model plans; its tick is kept (and sent) either way.
  rulesFirst.disabled = !plannerOn;
  rulesFirst.closest('label').classList.toggle('disabled', !plannerOn);
  for (const el of form.querySelectorAll('.embedder-model input, .embedder-model button')) el.disabled = !embedderOn;
}
form.addEventListener('change', syncEnabled);

function setStatus(text, kind = '') {
  statusEl.className = `save-status ${kind}`;
  replace(statusEl, text ? [kind === 'ok' ? icon('check') : kind === 'error' ? icon('warning') : null, text] : []);
}

/** The planner and embedder fields from `s`; the other fields keep what is typed in them. */
function fillModels(s) {
  setRadio('planner', s.thinker_backend ?? 'rule');
  plannerModel.value = s.thinker_model_path ?? '';
  rulesFirst.checked = s.thinker_rules_first ?? true;
  setRadio('embedder', s.embedding_backend ?? 'words');
  embedderModel.value = s.embedding_model_path ?? '';
  syncEnabled();
}

function fill(s) {
  current = s;
  root.value = s.working_root ?? '';
  fillModels(s);
  setRadio('hitl', s.hitl_mode ?? 'key');
  shortcut.value = s.shortcut ?? '';
  dropFolder.value = s.drop_folder ?? '';
  configFile.textContent = s.config_file ?? '—';
  showInUse();
}

/** "/home/u/" and "/home/u" are the same folder. */
function samePath(a, b) {
  const norm = (p) => String(p).replace(/(.)[\\/]+$/, '$1');
  return norm(a) === norm(b);
}

/**
 * The folder in use can differ from the saved one (set by the environment, or from the bar with set_root):
 * then a quiet line under the field names it, and an empty field shows it as its placeholder.
 */
function showInUse() {
  const used = info?.root || null;
  const saved = current?.working_root || null;
  root.placeholder = used ?? ROOT_PLACEHOLDER;
  const show = Boolean(used) && (!saved || !samePath(saved, used));
  inUseEl.hidden = !show;
  if (show) {
    replace(inUseEl, 'In use now: ', h('span.code.in-use-path', used));
    inUseEl.title = `The folder the engine works on now (set by the environment or from the bar)${saved ? '' : '; none is saved'}`;
  }
}

async function loadInfo() {
  try {
    info = await api.appInfo();
  } catch {
    info = null;
  }
  showInUse();
}

function read() {
  const orNull = (v) => (v.trim() === '' ? null : v.trim());
  return {
    working_root: orNull(root.value),
    thinker_backend: radioValue('planner'),
    thinker_model_path: orNull(plannerModel.value),
    thinker_rules_first: rulesFirst.checked,
    embedding_backend: radioValue('embedder'),
    embedding_model_path: orNull(embedderModel.value),
    hitl_mode: radioValue('hitl'),
    shortcut: shortcut.value.trim(),
    drop_folder: orNull(dropFolder.value),
    config_file: current?.config_file ?? null,
  };
}

/** CONFIG_INVALID lists one problem per "  - …" line after a heading; other messages are one problem. */
function problems(message) {
  const lines = String(message).split('\n').map((l) => l.trim()).filter(Boolean);
  const bullets = lines.filter((l) => /^[-•*]\s+/.test(l)).map((l) => l.replace(/^[-•*]\s+/, ''));
  return bullets.length ? bullets : lines;
}

/** The text fields by the setting they edit: a CONFIG_INVALID problem naming `key` marks its field. */
const FIELD_OF_KEY = {
  working_root: root,
  thinker_model_path: plannerModel,
  embedding_model_path: embedderModel,
  shortcut,
  drop_folder: dropFolder,
};

function markInvalid(list) {
  for (const [key, input] of Object.entries(FIELD_OF_KEY)) {
    const bad = list.some((p) => p.includes(`\`${key}\``));
    input.classList.toggle('invalid', bad);
    if (bad) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
}

function showErrors(err) {
  if (!err) {
    markInvalid([]);
    errorsEl.hidden = true;
    errorsEl.replaceChildren();
    return;
  }
  const list = err.code === 'CONFIG_INVALID' ? problems(err.message) : [`${err.code}: ${err.message}`];
  markInvalid(err.code === 'CONFIG_INVALID' ? list : []);
  replace(
    errorsEl,
    h('div.errors-head', icon('warning'), err.code === 'CONFIG_INVALID' ? `${list.length} problem${list.length === 1 ? '' : 's'} — nothing was saved` : 'Could not save'),
    h('ul', list.map((p) => h('li', p))),
  );
  errorsEl.hidden = false;
  errorsEl.scrollIntoView({ block: 'nearest' });
}

async function load() {
  showErrors(null);
  try {
    fill(await api.settingsGet());
    setStatus('');
  } catch (err) {
    setStatus(`Settings unavailable — ${err.code}: ${err.message}`, 'error');
  }
}

async function save() {
  saveBtn.disabled = true;
  setStatus('Saving…');
  showErrors(null);
  try {
    fill(await api.settingsSet(read()));
    setStatus('Saved · models load in the background', 'ok');
    loadInfo();
  } catch (err) {
    showErrors(err);
    setStatus('Not saved', 'error');
  } finally {
    saveBtn.disabled = false;
  }
}

document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
    e.preventDefault();
    save();
  }
});

const STATE_ICON = { loading: null, ready: 'check', failed: 'x', fallback: 'undo', cancelled: 'stop' };

// The components whose latest progress is `loading` and whose load may still be cancelled.
const loading = new Set();

function syncCancel() {
  cancelRow.hidden = loading.size === 0;
  if (loading.size === 0) return;
  const names = [...loading].sort((a, b) => (a === 'planner' ? -1 : b === 'planner' ? 1 : a.localeCompare(b)));
  cancelNote.textContent = `Loading the ${names.join(' and ')} model${names.length > 1 ? 's' : ''}; the ones in use stay until then.`;
}

/** Stops waiting for the models loading: the reply's model settings (those in use) refill the form; null: nothing was loading any more. */
async function cancelLoading() {
  cancelBtn.disabled = true;
  try {
    const s = await api.modelLoadCancel();
    loading.clear();
    if (s) {
      current = s;
      fillModels(s);
      showInUse();
      setStatus('Loading cancelled', 'ok');
    }
  } catch (err) {
    setStatus(`Could not cancel loading — ${err.code}: ${err.message}`, 'error');
  } finally {
    cancelBtn.disabled = false;
    syncCancel();
  }
}

function onProgress(p) {
  if (!p) return;
  const time = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  progressList.querySelector('.empty')?.remove();
  progressList.append(
    h(
      `li.progress-line.${p.state}`,
      { dataset: { component: p.component, state: p.state } },
      p.state === 'loading' ? h('span.spinner') : icon(STATE_ICON[p.state] ?? 'spark'),
      h('span.p-time.faint', time),
      h('span.p-component', p.component),
      h('span.p-state', p.state),
      h('span.p-message', { title: p.message ?? '' }, p.message ?? ''),
    ),
  );
  // A finished component stops spinning on its earlier "loading" lines.
  if (p.state !== 'loading') {
    for (const li of progressList.querySelectorAll(`li.loading[data-component="${p.component}"] .spinner`)) li.replaceWith(icon('clock'));
  }
  while (progressList.children.length > 40) progressList.firstChild.remove();
  latest[p.component] = p.state;
  if (p.state === 'loading') loading.add(p.component);
  else loading.delete(p.component);
  syncCancel();
  replace(
    modelsEl,
    Object.entries(latest).map(([c, st]) => h(`span.model-chip.${st}`, { title: `${c}: ${st}` }, st === 'loading' ? h('span.spinner') : icon(STATE_ICON[st] ?? 'spark'), `${c} ${st}`)),
  );
  progressList.scrollTop = progressList.scrollHeight;
}

replace(progressList, h('li.empty.faint', 'No model is loading.'));
on(EVENTS.modelsProgress, onProgress);
on(EVENTS.graphChanged, (p) => {
  if (p?.reason === 'root') loadInfo();
});
// A watched folder was handled: its "handled … ago" changed.
on(EVENTS.inboxChanged, () => watches.load());
load();
loadInfo();
watches.load();
