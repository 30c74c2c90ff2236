// Skills editor window: skill list, new-skill form, SKILL.md editor with live diagnostics, save, external reloads, the open skill's tools as described (summary, example requests, where the descriptions come from) with "Describe".
import '../styles/base.css';
import './editor.css';
import { api, on, EVENTS } from '../ipc.js';
import { h, replace } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { EditorView, extensions, createState } from './cm.js';

const state = {
  skills: [],
  name: null, // the open skill
  path: '',
  saved: '', // text on disk as last loaded/saved
  dirty: false,
  diags: [],
  describing: null, // the skill whose skills_describe runs
  described: null, // { name, text, kind }: what the last "Describe" did (kind: busy | ok | warn | error)
};

// ---------------------------------------------------------------- layout

const listEl = h('ul.skill-list', { 'aria-label': 'Skills' });
const newName = h('input.field#new-name', { type: 'text', placeholder: 'sort-screenshots', spellcheck: 'false', autocomplete: 'off' });
const newDesc = h('textarea.field#new-desc', { rows: 3, placeholder: 'What the skill does, in the words people type for it.' });
const newError = h('div.form-error', { role: 'alert' });
const newForm = h(
  'form.new-skill',
  { hidden: true, onSubmit: (e) => { e.preventDefault(); createSkill(); } },
  h('label', { for: 'new-name' }, 'Name'),
  newName,
  h('label', { for: 'new-desc' }, 'Description'),
  newDesc,
  newError,
  h(
    'div.form-actions',
    h('button.btn.primary', { type: 'submit' }, 'Create skill'),
    h('button.btn.ghost', { type: 'button', onClick: () => toggleNewForm(false) }, 'Cancel'),
  ),
);
const titleEl = h('h1.e-title');
const pathEl = h('span.e-path.code');
const dirtyEl = h('span.dirty-dot', { title: 'Unsaved changes', hidden: true });
const statusEl = h('span.save-status', { role: 'status', 'aria-live': 'polite' });
const saveBtn = h('button.btn.primary.save', { type: 'button', onClick: () => save() }, icon('save'), 'Save', h('kbd', 'Ctrl S'));
const noticeEl = h('div.e-notice', { hidden: true, role: 'alert' });
const editorHost = h('div.e-editor');
const problemsCount = h('span.problems-count');
const problemsList = h('ul.problems-list');
const describeBtn = h(
  'button.btn.small.describe-btn',
  { type: 'button', disabled: true, title: 'Write descriptions.json for the saved SKILL.md: each tool\'s summary and example requests, by the planner model when one is configured', onClick: () => describe() },
  icon('spark'),
  'Describe',
);
const originEl = h('div.tools-origin');
const describeStatus = h('div.describe-status', { role: 'status', 'aria-live': 'polite' });
const toolsList = h('ul.tool-list');

document.getElementById('app').replaceWith(
  h(
    'div.ewin',
    h(
      'aside.e-side',
      h('header.e-side-head', h('h2', icon('puzzle'), 'Skills'), h('button.btn.small.new-skill-btn', { type: 'button', onClick: () => toggleNewForm() }, icon('plus'), 'New skill')),
      newForm,
      listEl,
    ),
    h(
      'main.e-main',
      h('header.e-toolbar', h('div.e-heading', h('div.e-title-row', titleEl, dirtyEl), pathEl), statusEl, saveBtn),
      noticeEl,
      editorHost,
      h('section.problems', h('header.problems-head', h('h2', 'Problems'), problemsCount), problemsList),
    ),
    h(
      'aside.e-tools',
      { 'aria-label': 'Tools' },
      h('header.e-tools-head', h('h2', icon('layers'), 'Tools'), describeBtn),
      originEl,
      describeStatus,
      toolsList,
    ),
  ),
);

// ---------------------------------------------------------------- editor

const exts = extensions({
  check: (text) => (state.name ? api.skillCheck(state.name, text) : Promise.resolve([])),
  onDiagnostics: (diags, err) => renderProblems(diags, err),
  onSave: () => save(),
  onChange: () => setDirty(view.state.doc.toString() !== state.saved),
});
const view = new EditorView({ state: createState('', exts), parent: editorHost });
window.editorView = view;

function setDirty(dirty) {
  state.dirty = dirty;
  dirtyEl.hidden = !dirty;
  document.title = `${dirty ? '• ' : ''}Scope Weaver — Skills`;
}

function setText(text) {
  view.setState(createState(text, exts));
  state.saved = text;
  setDirty(false);
}

function setStatus(text, kind = '') {
  statusEl.className = `save-status ${kind}`;
  replace(statusEl, text ? [kind === 'ok' ? icon('check') : kind ? icon('warning') : null, text] : []);
}

function shortFile(file) {
  const parts = String(file ?? '').split(/[\\/]/).filter(Boolean);
  return parts.slice(-2).join('/') || 'SKILL.md';
}

function renderProblems(diags, err) {
  if (err) {
    problemsCount.textContent = '';
    replace(problemsList, h('li.problem.error.check-failed', icon('warning'), h('span', `Check failed — ${err.code}: ${err.message}`)));
    return;
  }
  state.diags = diags ?? [];
  const errors = state.diags.filter((d) => d.severity === 'error').length;
  const warnings = state.diags.length - errors;
  problemsCount.textContent = state.diags.length ? `${errors} error${errors === 1 ? '' : 's'} · ${warnings} warning${warnings === 1 ? '' : 's'}` : 'No problems';
  problemsCount.className = `problems-count ${errors ? 'has-errors' : warnings ? 'has-warnings' : 'clean'}`;
  replace(
    problemsList,
    state.diags.map((d) =>
      h(
        `li.problem.${d.severity === 'warning' ? 'warning' : 'error'}`,
        h(
          'button',
          { type: 'button', onClick: () => gotoLine(d.line), title: 'Go to line' },
          icon('warning'),
          h('span.problem-loc.code', `${shortFile(d.file)}:${d.line}`),
          h('span.problem-code.code', d.code),
          h('span.problem-msg', d.message),
        ),
      ),
    ),
  );
}

function gotoLine(n) {
  const doc = view.state.doc;
  const line = doc.line(n >= 1 && n <= doc.lines ? n : 1);
  view.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
  view.focus();
}

// ---------------------------------------------------------------- skills list

async function loadList() {
  try {
    state.skills = (await api.skillsList()) ?? [];
  } catch (err) {
    replace(listEl, h('li.list-error', `Skills unavailable — ${err.code}: ${err.message}`));
    return;
  }
  renderList();
}

function renderList() {
  replace(
    listEl,
    state.skills.map((s) => {
      const errors = (s.diagnostics ?? []).filter((d) => d.severity === 'error').length;
      const warnings = (s.diagnostics ?? []).length - errors;
      return h(
        'li',
        h(
          'button.skill-item',
          {
            type: 'button',
            dataset: { name: s.name },
            'aria-current': s.name === state.name ? 'true' : 'false',
            title: s.description ?? '',
            onClick: () => open(s.name),
          },
          h('span.dot', { style: { '--skill': s.vis?.color ?? 'var(--faint)' } }),
          h('span.skill-text', h('span.skill-name', s.name), h('span.skill-desc', s.description ?? '')),
          h(
            'span.skill-diags',
            errors ? h('span.badge.danger.diag-errors', { title: `${errors} errors` }, String(errors)) : null,
            warnings ? h('span.badge.warn.diag-warnings', { title: `${warnings} warnings` }, String(warnings)) : null,
          ),
        ),
      );
    }),
  );
  renderTools();
}

// ---------------------------------------------------------------- tools (described)

/** Where the open skill's descriptions come from: "Described by <model>", or derived from the SKILL.md and why. */
function originText(d) {
  if (!d) return '';
  if (d.stored && d.generated_by !== 'derived') return `Described by ${d.generated_by}`;
  if (d.stored) return 'Derived from SKILL.md (descriptions.json)';
  return d.reason ? `Derived from SKILL.md — ${d.reason}` : 'Derived from SKILL.md';
}

/** The open skill's tools: each one's summary and example requests, what describes them, and "Describe". */
function renderTools() {
  const skill = state.skills.find((s) => s.name === state.name);
  const origin = originText(skill?.descriptions);
  originEl.hidden = !origin;
  originEl.className = `tools-origin ${skill?.descriptions?.stored && skill.descriptions.generated_by !== 'derived' ? 'model' : 'derived'}`;
  replace(originEl, origin ? [icon(skill.descriptions.stored ? 'fileText' : 'file'), h('span.tools-origin-text', { title: origin }, origin)] : []);
  describeBtn.disabled = !skill || Boolean(state.describing);
  describeBtn.setAttribute('aria-label', skill ? `Describe the tools of ${skill.name}` : 'Describe');
  const status = state.described?.name === state.name ? state.described : null;
  describeStatus.hidden = !status;
  describeStatus.className = `describe-status ${status?.kind ?? ''}`;
  replace(
    describeStatus,
    status ? [status.kind === 'busy' ? h('span.spinner') : icon(status.kind === 'ok' ? 'check' : 'warning'), h('span', { title: status.title ?? status.text }, status.text)] : [],
  );
  const tools = skill?.tools ?? [];
  replace(
    toolsList,
    tools.length
      ? tools.map((t) => {
          const examples = t.described?.examples ?? [];
          return h(
            'li.tool-entry',
            { dataset: { tool: t.name } },
            h(
              'div.tool-head',
              h('span.tool-name.code', t.name),
              t.destructive ? h('span.badge.danger.tool-deletes', { title: 'Marked destructive in vis.json' }, 'deletes') : null,
              !t.mutates ? h('span.badge.muted.tool-readonly', { title: 'Changes nothing on disk' }, 'read-only') : null,
            ),
            h('p.tool-summary', { title: t.description }, t.described?.summary || t.description),
            examples.length
              ? h(
                  'p.tool-examples',
                  h('span.tool-examples-label', 'Ask: '),
                  examples.map((e, i) => [i ? ', ' : '', h('span.tool-example', `“${e}”`)]),
                )
              : null,
          );
        })
      : h('li.tools-empty', skill ? 'No tools: the SKILL.md declares none, or does not load.' : ''),
  );
}

/** "Written by derived in 0.1 s" and the like, from a skills_describe answer. */
function describeOutcome(r) {
  if (!r) return { text: 'Nothing was described', kind: 'warn' };
  const failed = r.failed ?? [];
  const secs = `${Number(r.seconds ?? 0).toFixed(1)} s`;
  if (r.outcome === 'written' && failed.length) {
    return { text: `Written by ${r.generated_by} in ${secs} · ${failed.length} of ${r.tools} derived instead`, kind: 'warn', title: failed.join('\n') };
  }
  if (r.outcome === 'written') return { text: `Written by ${r.generated_by} in ${secs}`, kind: 'ok' };
  if (r.outcome === 'current') return { text: `Already current (${r.generated_by})`, kind: 'ok' };
  if (r.outcome === 'skipped') return { text: 'Skipped: no tools to describe', kind: 'warn' };
  return { text: `${r.outcome} in ${secs}`, kind: 'ok' };
}

/** "Describe": skills_describe([name], force) writes the open skill's descriptions.json again; the list is reloaded. */
async function describe() {
  const name = state.name;
  if (!name || state.describing) return;
  state.describing = name;
  state.described = { name, text: 'Describing…', kind: 'busy' };
  renderTools();
  try {
    const [res] = (await api.skillsDescribe([name], true)) ?? [];
    state.described = { name, ...describeOutcome(res) };
  } catch (err) {
    state.described = { name, text: `Describe failed — ${err.code}: ${err.message}`, kind: 'error' };
  } finally {
    state.describing = null;
  }
  await loadList();
  renderTools();
}

// ---------------------------------------------------------------- open / save

function notice(text, ...buttons) {
  replace(noticeEl, icon('warning'), h('span.notice-text', text), h('span.spacer'), ...buttons);
  noticeEl.hidden = false;
}

function clearNotice() {
  noticeEl.hidden = true;
  noticeEl.replaceChildren();
}

async function open(name, { force = false } = {}) {
  if (!force && state.dirty && name !== state.name) {
    notice(
      `Unsaved changes in ${state.name}.`,
      h('button.btn.small.primary', { type: 'button', onClick: async () => { if (await save()) open(name, { force: true }); } }, 'Save and switch'),
      h('button.btn.small', { type: 'button', onClick: () => open(name, { force: true }) }, 'Discard changes'),
      h('button.btn.small.ghost', { type: 'button', onClick: clearNotice }, 'Stay'),
    );
    return;
  }
  clearNotice();
  let src;
  try {
    src = await api.skillSource(name);
  } catch (err) {
    setStatus(`Could not open ${name} — ${err.code}: ${err.message}`, 'error');
    return;
  }
  state.name = src.name ?? name;
  state.path = src.path ?? '';
  titleEl.textContent = state.name;
  pathEl.textContent = state.path;
  pathEl.title = state.path;
  setText(src.text ?? '');
  setStatus('');
  renderList();
  history.replaceState(null, '', `#${encodeURIComponent(state.name)}`);
  view.focus();
}

const OUTCOME = {
  loaded: (r) => [r.reembedded ? `Saved · re-embedded ${r.name}` : `Saved · ${r.name} loaded`, 'ok'],
  kept_previous: () => ['Saved with errors — previous version stays in use', 'warn'],
  rejected: () => ['Saved with errors — the skill is not loaded', 'error'],
  removed: (r) => [`Saved · ${r.name} removed from the index`, 'warn'],
  deferred: (r) => [`Saved · ${r.name} reloads when the running request ends`, 'ok'],
};

/** Saves the buffer; true when the file was written. */
async function save() {
  if (!state.name) return false;
  const text = view.state.doc.toString();
  saveBtn.disabled = true;
  setStatus('Saving…');
  try {
    const res = await api.skillSave(state.name, text);
    state.saved = text;
    setDirty(view.state.doc.toString() !== text);
    const [msg, kind] = (OUTCOME[res.outcome] ?? (() => [`Saved · ${res.outcome}`, 'ok']))(res);
    setStatus(msg, kind);
    if (res.diagnostics) renderProblems(res.diagnostics);
    loadList();
    return true;
  } catch (err) {
    setStatus(`Save failed — ${err.code}: ${err.message}`, 'error');
    return false;
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

/** skills://changed: refresh the list; reload the open file when it changed on disk and has no edits. */
async function onSkillsChanged(p) {
  await loadList();
  if (!p || p.name !== state.name) return;
  if (p.outcome === 'removed') {
    notice(`${state.name} was removed on disk.`);
    return;
  }
  let src;
  try {
    src = await api.skillSource(state.name);
  } catch {
    return;
  }
  if (src.text === view.state.doc.toString()) {
    state.saved = src.text;
    setDirty(false);
    return;
  }
  if (!state.dirty) {
    setText(src.text);
    setStatus('Reloaded — the file changed on disk', 'ok');
  } else {
    notice(
      `${state.name} changed on disk.`,
      h('button.btn.small', { type: 'button', onClick: () => { setText(src.text); clearNotice(); setStatus('Reloaded from disk', 'ok'); } }, 'Reload from disk'),
      h('button.btn.small.ghost', { type: 'button', onClick: clearNotice }, 'Keep my edits'),
    );
  }
}

// ---------------------------------------------------------------- new skill

function toggleNewForm(show = newForm.hidden) {
  newForm.hidden = !show;
  newError.textContent = '';
  if (show) newName.focus();
}

async function createSkill() {
  const name = newName.value.trim();
  const description = newDesc.value.trim();
  const problems = [];
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64) problems.push('Name: lowercase letters and digits joined by hyphens (at most 64).');
  if (!description) problems.push('Description: say what the skill does.');
  if (problems.length) {
    replace(newError, problems.map((p) => h('div', p)));
    return;
  }
  try {
    const res = await api.skillCreate(name, description);
    newName.value = '';
    newDesc.value = '';
    toggleNewForm(false);
    await loadList();
    await open(res.name ?? name);
    const drafted = res.drafted_tools ?? [];
    setStatus(
      drafted.length
        ? `Created ${res.name ?? name} with ${drafted.length} drafted tool${drafted.length === 1 ? '' : 's'}: ${drafted.join(', ')}`
        : `Created ${res.name ?? name}`,
      'ok',
    );
  } catch (err) {
    newError.textContent = `${err.code}: ${err.message}`;
  }
}

newForm.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') toggleNewForm(false);
});

// ---------------------------------------------------------------- start

async function start() {
  await loadList();
  const wanted = decodeURIComponent(location.hash.slice(1));
  const first = state.skills.find((s) => s.name === wanted) ?? state.skills[0];
  if (first) await open(first.name);
  else titleEl.textContent = 'No skills';
  on(EVENTS.skillsChanged, onSkillsChanged);
}

start();
