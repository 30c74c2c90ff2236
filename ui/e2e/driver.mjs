// The real desktop app under WebKitWebDriver, for the end-to-end tests: starts the app with an
// environment, finds its four windows by title, and drives them (switch, run scripts, call app
// commands through a window's own capability, wait for a condition, take screenshots).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
export const APP = process.env.E2E_APP_BINARY ?? join(process.env.CARGO_TARGET_DIR ?? join(process.env.HOME, '.cache/scope-weaver/target'), 'debug/scope-weaver-app');
export const ARTIFACTS = process.env.E2E_ARTIFACTS ?? join(REPO, 'ui/test-results/e2e');
export const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const TITLES = { 'Scope Weaver': 'bar', 'Scope Weaver — Graph': 'graph', 'Scope Weaver — Skills': 'editor', 'Scope Weaver — Settings': 'settings' };

/** A screenshot of the whole (virtual) screen. */
export function shot(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  spawnSync('import', ['-window', 'root', join(ARTIFACTS, `${name}.png`)]);
}

/** One running app and its WebDriver session. */
export class App {
  constructor(port, driver) {
    this.port = port;
    this.driver = driver;
    this.session = null;
    this.windows = {};
  }

  /** Starts the app with `env` (its own WebKitWebDriver on a free port) and waits for its four windows. */
  static async start(env) {
    assert.ok(existsSync(APP), `build the app first: ${APP}`);
    const port = 4445 + Math.floor(Math.random() * 400);
    const driver = spawn('WebKitWebDriver', [`--port=${port}`], { env, stdio: process.env.E2E_DRIVER_LOG ? 'inherit' : 'ignore' });
    const app = new App(port, driver);
    for (let i = 0; i < 50; i++) {
      try {
        await app.wd('GET', '/status');
        break;
      } catch {
        await sleep(100);
      }
    }
    const created = await app.wd('POST', '/session', {
      capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: APP, args: [] } } },
    });
    app.session = created.sessionId;
    const end = Date.now() + 30000;
    while (Object.keys(app.windows).length < 4 && Date.now() < end) {
      for (const h of await app.wd('GET', app.s('/window/handles'))) {
        await app.wd('POST', app.s('/window'), { handle: h });
        const label = TITLES[await app.wd('GET', app.s('/title'))];
        if (label) app.windows[label] = h;
      }
      if (Object.keys(app.windows).length < 4) await sleep(300);
    }
    assert.deepEqual(Object.keys(app.windows).sort(), ['bar', 'editor', 'graph', 'settings']);
    return app;
  }

  async wd(method, path, body) {
    const res = await fetch(`http://127.0.0.1:${this.port}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value ?? json)}`);
    return json.value;
  }

  /** A path inside this WebDriver session. */
  s(path) {
    return `/session/${this.session}${path}`;
  }

  /** Makes the window `label` the one scripts run in. */
  use(label) {
    return this.wd('POST', this.s('/window'), { handle: this.windows[label] });
  }

  run(script, ...args) {
    return this.wd('POST', this.s('/execute/sync'), { script, args });
  }

  runAsync(script, ...args) {
    return this.wd('POST', this.s('/execute/async'), { script, args });
  }

  /** Calls an app command from the current window (through the window's own capability): {ok} or {err}. */
  invoke(cmd, args = {}) {
    return this.runAsync(
      'const done = arguments[arguments.length - 1]; window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then((v) => done({ ok: v }), (e) => done({ err: e }));',
      cmd,
      args,
    );
  }

  /** Polls `script` in the current window until it returns something truthy (then returns it). */
  async until(what, script, { timeout = 30000, args = [] } = {}) {
    const end = Date.now() + timeout;
    let last;
    while (Date.now() < end) {
      last = await this.run(script, ...args).catch((e) => ({ error: e.message }));
      if (last && !last.error) return last;
      await sleep(200);
    }
    shot(`timeout-${what.replace(/\W+/g, '-')}`);
    throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
  }

  async find(css) {
    const el = await this.wd('POST', this.s('/element'), { using: 'css selector', value: css });
    return el[ELEMENT];
  }

  /** Ends the session (the app quits) and the driver. */
  async close() {
    if (this.session) await this.wd('DELETE', this.s('')).catch(() => {});
    this.session = null;
    this.driver?.kill();
  }
}
