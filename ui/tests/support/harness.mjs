// Playwright harness: opens a built page with the Tauri mock, exposes helpers, fails on page errors, CSP violations and answers that do not fit the contract.
import { test as base, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { installTauriMock } from './tauri-mock.js';
import { answerProblems } from './ipc-contract.mjs';

export { expect };

export const SCREENS = fileURLToPath(new URL('../../test-results/screens/', import.meta.url));

export const SIZES = {
  bar: { width: 760, height: 520 },
  graph: { width: 1280, height: 800 },
  editor: { width: 1100, height: 760 },
  settings: { width: 720, height: 640 },
};

class App {
  constructor(page, errors) {
    this.page = page;
    this.errors = errors;
  }

  /** Opens `<label>.html` at its window size with the mock answering `responses`; `setup` runs in the page first. */
  async open(label, { responses = {}, setup, setupArg } = {}) {
    await this.page.setViewportSize(SIZES[label]);
    await this.page.addInitScript(installTauriMock, { responses, label });
    if (setup) await this.page.addInitScript(setup, setupArg);
    await this.page.goto(`/${label}.html`);
    return this;
  }

  /** The args of every call of `cmd` so far. */
  calls(cmd) {
    return this.page.evaluate((c) => window.__mock.calls.filter((x) => x.cmd === c).map((x) => x.args), cmd);
  }

  /** Waits until `cmd` was called at least `n` times; returns the args of the calls. */
  async waitForCalls(cmd, n = 1) {
    await expect.poll(async () => (await this.calls(cmd)).length, { message: `${cmd} called ${n}×` }).toBeGreaterThanOrEqual(n);
    return this.calls(cmd);
  }

  /** Every answer the page sent so far, as { id, answer, question } (`question`: the type of the question answered). */
  answers() {
    return this.page.evaluate(() => window.__mock?.answers ?? []);
  }

  async lastCall(cmd) {
    const calls = await this.waitForCalls(cmd);
    return calls[calls.length - 1];
  }

  send(msgs) {
    return this.page.evaluate((m) => window.__mock.send(m), msgs);
  }

  emit(event, payload) {
    return this.page.evaluate(([e, p]) => window.__mock.emit(e, p), [event, payload]);
  }

  /** Waits until the page listens to `event` (listen() is async). */
  async waitForListener(event) {
    await expect.poll(() => this.page.evaluate((e) => window.__mock.listening(e), event)).toBeGreaterThan(0);
  }

  respond(cmd, value) {
    return this.page.evaluate(([c, v]) => {
      window.__mock.responses[c] = v;
    }, [cmd, value]);
  }

  finishRun(report) {
    return this.page.evaluate((r) => window.__mock.finishRun(r), report);
  }

  failRun(error) {
    return this.page.evaluate((e) => window.__mock.failRun(e), error);
  }

  async screenshot(name) {
    mkdirSync(SCREENS, { recursive: true });
    await this.page.waitForTimeout(150); // let transitions settle
    await this.page.screenshot({ path: `${SCREENS}${name}.png` });
  }
}

export const test = base.extend({
  app: async ({ page }, use) => {
    const errors = [];
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
    });
    const app = new App(page, errors);
    await use(app);
    // No uncaught errors, no CSP violations ("Refused to …") in any test.
    expect(errors, 'page errors / CSP violations').toEqual([]);
    // Every answer the page sent fits the schema of the question it answers (answers/<type>).
    if (!page.isClosed()) {
      expect(answerProblems(await app.answers()), 'answers that do not fit the contract (ipc.schema.json answers/<question type>)').toEqual([]);
    }
  },
});
