// Test-only Tauri IPC mock, injected with page.addInitScript: answers commands, records calls, pushes channel messages and events.
// Everything here runs inside the page; it must not close over anything from the test file.

/**
 * Installs window.__TAURI_INTERNALS__ (invoke, transformCallback, unregisterCallback, runCallback) and
 * window.__mock, the test's remote control:
 *   __mock.calls                      every invoke as { cmd, args } (Channels appear as "__CHANNEL__:<id>")
 *   __mock.answers                    every answer call as { id, answer, question }, `question` the type of
 *                                     the question `id` sent last before it (null if none was), so the
 *                                     harness can check each answer against the schema of its question
 *   __mock.responses[cmd] = value     static answer; { __error: {code, message} } rejects
 *   __mock.handlers[cmd] = (args) =>  computed answer (may throw {code, message} or return a promise)
 *   __mock.send(msg | [msg…])         delivers messages on the latest run_request / undo_run / inbox_approve channel
 *   __mock.finishRun(report) / __mock.failRun(error)   settles the latest run_request / undo_run / inbox_approve
 *   (undo_run and inbox_approve stream like run_request unless responses[cmd] / handlers[cmd] answer them at once)
 *   __mock.emit(event, payload)       delivers an app-wide event to listen() handlers
 *   (the page's own emit() / emitTo() are recorded in calls like commands; they reach this page's
 *   listeners when addressed to it, as Tauri's do)
 */
export function installTauriMock(config) {
  const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  const callbacks = new Map();
  const listeners = new Map();
  let nextCallback = 1;
  // Commands that stream on their `on_event` channel like run_request, unless the test answers them.
  const STREAMED = ['undo_run', 'inbox_approve'];
  const mock = {
    calls: [],
    answers: [],
    asked: {}, // question id → type of the question last sent with that id
    responses: clone(config?.responses ?? {}),
    handlers: {},
    runs: [],
    send(msgs) {
      const run = mock.runs[mock.runs.length - 1];
      if (!run) throw new Error('no run_request / undo_run / inbox_approve in flight');
      for (const message of Array.isArray(msgs) ? msgs : [msgs]) {
        const cb = callbacks.get(run.channelId);
        if (!cb) throw new Error(`channel ${run.channelId} is gone`);
        if (message?.kind === 'question') mock.asked[message.id] = message.question?.type ?? null;
        cb({ index: run.index++, message: clone(message) });
      }
    },
    finishRun(report) {
      const run = mock.runs[mock.runs.length - 1];
      run.resolve(clone(report));
    },
    failRun(error) {
      const run = mock.runs[mock.runs.length - 1];
      run.reject(clone(error));
    },
    emit(event, payload) {
      for (const id of listeners.get(event) ?? []) {
        callbacks.get(id)?.({ event, id, payload: clone(payload) });
      }
    },
    listening(event) {
      return (listeners.get(event) ?? []).length;
    },
  };

  function registerCallback(callback, once = false) {
    const id = nextCallback++;
    callbacks.set(id, (data) => {
      if (once) callbacks.delete(id);
      return callback?.(data);
    });
    return id;
  }

  async function invoke(cmd, args = {}) {
    mock.calls.push({ cmd, args: clone(args) });
    if (cmd === 'answer') mock.answers.push({ id: args.id, answer: clone(args.answer), question: mock.asked[args.id] ?? null });
    if (cmd === 'plugin:event|listen') {
      if (!listeners.has(args.event)) listeners.set(args.event, []);
      listeners.get(args.event).push(args.handler);
      return args.handler;
    }
    if (cmd === 'plugin:event|unlisten') {
      const list = listeners.get(args.event) ?? [];
      const i = list.indexOf(args.eventId);
      if (i !== -1) list.splice(i, 1);
      return null;
    }
    if (cmd === 'plugin:event|emit' || cmd === 'plugin:event|emit_to') {
      const to = args.target;
      if (!to || to.kind === 'Any' || to.label === (config?.label ?? 'main')) mock.emit(args.event, args.payload);
      return null;
    }
    const scripted = typeof mock.handlers[cmd] === 'function' || Object.prototype.hasOwnProperty.call(mock.responses, cmd);
    if (cmd === 'run_request' || (STREAMED.includes(cmd) && !scripted)) {
      const channelId = args.on_event?.id;
      return new Promise((resolve, reject) => mock.runs.push({ cmd, channelId, index: 0, resolve, reject }));
    }
    if (typeof mock.handlers[cmd] === 'function') {
      return clone(await mock.handlers[cmd](clone(args)));
    }
    if (Object.prototype.hasOwnProperty.call(mock.responses, cmd)) {
      const r = mock.responses[cmd];
      if (r && typeof r === 'object' && r.__error) throw clone(r.__error);
      return clone(r);
    }
    throw { code: 'UNMOCKED', message: `no mock answer for ${cmd}` };
  }

  window.__TAURI_INTERNALS__ = {
    invoke,
    transformCallback: registerCallback,
    unregisterCallback: (id) => callbacks.delete(id),
    runCallback: (id, data) => callbacks.get(id)?.(data),
    callbacks,
    convertFileSrc: (p) => p,
    metadata: { currentWindow: { label: config?.label ?? 'main' }, currentWebview: { windowLabel: config?.label ?? 'main', label: config?.label ?? 'main' } },
  };
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = {
    unregisterListener: (event, id) => callbacks.delete(id),
  };
  window.__mock = mock;
}
