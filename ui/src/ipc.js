// Tauri IPC for every window: the contract's commands and events (docs/desktop-ipc.md), errors as {code, message}.
import { invoke, Channel } from '@tauri-apps/api/core';
import { listen, emitTo } from '@tauri-apps/api/event';

/** Turns whatever a rejected invoke gives (contract object, string, Error) into `{ code, message }`. */
export function normaliseError(err) {
  if (err && typeof err === 'object' && typeof err.code === 'string') {
    return { code: err.code, message: String(err.message ?? err.code) };
  }
  if (typeof err === 'string') {
    // Tauri's own failures (unknown command, bad arguments) arrive as plain strings.
    return { code: 'IPC_ERROR', message: err };
  }
  if (err instanceof TypeError && !hasIpc()) {
    return { code: 'NO_IPC', message: 'Not running inside the Scope Weaver app.' };
  }
  return { code: 'INTERNAL', message: String(err?.message ?? err ?? 'Unknown error') };
}

/** True when the Tauri runtime (or a test mock) is present. */
export function hasIpc() {
  return typeof window.__TAURI_INTERNALS__?.invoke === 'function';
}

/** Invokes a command; rejects with `{ code, message }`. */
export async function call(cmd, args = {}) {
  try {
    return await invoke(cmd, args);
  } catch (err) {
    throw normaliseError(err);
  }
}

/** Subscribes to an app-wide Tauri event; the handler gets the payload. Returns an unlisten function. */
export async function on(event, handler) {
  try {
    return await listen(event, (e) => handler(e.payload, e));
  } catch (err) {
    console.warn(`listen(${event}) failed`, normaliseError(err));
    return () => {};
  }
}

/** Sends an app event to one window (by its label); rejects with `{ code, message }`. */
export async function tell(label, event, payload) {
  try {
    await emitTo(label, event, payload);
  } catch (err) {
    throw normaliseError(err);
  }
}

/** A Channel whose messages go to `onMessage` (run_request's `on_event`). */
export function channel(onMessage) {
  const ch = new Channel();
  ch.onmessage = onMessage;
  return ch;
}

// The contract's commands, one function each.
export const api = {
  // App
  appInfo: () => call('app_info'),
  agents: () => call('agents'),
  openWindow: (label) => call('open_window', { label }),
  hideBar: () => call('hide_bar'),
  setRoot: (path) => call('set_root', { path }),
  pickFolder: () => call('pick_folder'),
  pickFile: (filters) => call('pick_file', filters ? { filters } : {}),
  // Running a request
  runRequest: ({ request, dryRun = false, hitl = null, onEvent }) =>
    call('run_request', { request, dry_run: dryRun, hitl, on_event: onEvent }),
  answer: (id, answer) => call('answer', { id, answer }),
  cancelRun: () => call('cancel_run'),
  history: (limit = 20) => call('history', { limit }),
  // Undo and recovery (undo_run streams on `on_event` like run_request)
  committedRuns: (limit = 20) => call('committed_runs', { limit }),
  undoRun: ({ runId = null, dryRun = false, onEvent }) => call('undo_run', { run_id: runId, dry_run: dryRun, on_event: onEvent }),
  pendingRecovery: () => call('pending_recovery'),
  finishRecovery: () => call('finish_recovery'),
  // Saved workflows
  workflowSave: (runId, name) => call('workflow_save', { run_id: runId, name }),
  workflowSuggestions: () => call('workflow_suggestions'),
  workflowMatches: (request) => call('workflow_matches', { request }),
  // Watched folders and the inbox (inbox_approve streams on `on_event` like run_request)
  watchesList: () => call('watches_list'),
  watchAdd: ({ folder, request, settleSecs = 5, trusted = false }) => call('watch_add', { folder, request, settle_secs: settleSecs, trusted }),
  watchRemove: (id) => call('watch_remove', { id }),
  inboxList: () => call('inbox_list'),
  inboxApprove: ({ id, onEvent }) => call('inbox_approve', { id, on_event: onEvent }),
  inboxDiscard: (id) => call('inbox_discard', { id }),
  // The item simulated again on its folder as it is now and drawn in the graph window: `{ id, root, changes, counts }`.
  inboxPreview: (id) => call('inbox_preview', { id }),
  // Graph (rollback_to is an addition to the contract: the graph window has no question channel)
  graphView: (expanded, limit = 60) => call('graph_view', { expanded, limit }),
  rollbackTo: (snapshot) => call('rollback_to', { snapshot }),
  // Skills
  skillsList: () => call('skills_list'),
  skillSource: (name) => call('skill_source', { name }),
  skillCheck: (name, text) => call('skill_check', { name, text }),
  skillSave: (name, text) => call('skill_save', { name, text }),
  skillCreate: (name, description) => call('skill_create', { name, description }),
  skillSearch: (query) => call('skill_search', { query }),
  // Writes descriptions.json of the named skills (every skill when `names` is empty); `force` also rewrites current ones.
  skillsDescribe: (names, force = false) => call('skills_describe', { ...(names?.length ? { names } : {}), force }),
  // Settings
  settingsGet: () => call('settings_get'),
  settingsSet: (settings) => call('settings_set', { settings }),
  // Stops waiting for the models settings_set started loading: the Settings with the models still in use, or null.
  modelLoadCancel: () => call('model_load_cancel'),
};

export const EVENTS = {
  pipeline: 'pipeline://event',
  pipelineToken: 'pipeline://token',
  graphChanged: 'graph://changed',
  skillsChanged: 'skills://changed',
  modelsProgress: 'models://progress',
  // A watched folder was handled, or an inbox item approved or discarded (`{ count, outcome }`).
  inboxChanged: 'inbox://changed',
  // Between windows: the graph asks the bar to undo a run (`{ run_id, request }`).
  undoRequested: 'undo://requested',
};
