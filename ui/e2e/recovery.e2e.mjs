// End-to-end: the app is killed (-9) half-way through a commit; started again, it finds the
// interrupted commit, the bar shows it before anything else and "Finish it" completes it; the
// recovered run is in Recent with Undo, and after another restart that Undo puts every file back.
//
// Run through scripts/e2e.sh (it builds the app and starts Xvfb + a D-Bus session).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { APP, App, REPO, shot, sleep } from './driver.mjs';

const REQUEST = 'Organize the files in Downloads into subfolders by type';

const work = mkdtempSync(join(tmpdir(), 'sw-e2e-recovery-'));
const home = join(work, 'home');
const state = join(work, 'state');
const env = {
  ...process.env,
  TAURI_WEBVIEW_AUTOMATION: 'true',
  XDG_DATA_HOME: join(work, 'data'),
  SCOPE_WEAVER_WORKING_ROOT: home,
  SCOPE_WEAVER_STATE_DIR: state,
  SCOPE_WEAVER_SKILLS_DIR: join(work, 'skills'),
  SCOPE_WEAVER_CONFIG: join(work, 'config.yaml'),
};
let app;
let original; // the tree before the run

/** Every file below `dir` with its content. */
function tree(dir, base = dir) {
  const out = {};
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) Object.assign(out, tree(p, base));
    else out[relative(base, p)] = readFileSync(p, 'utf8');
  }
  return out;
}

/** How many changes the commit's journal marks done (0 without a journal). */
function journalDone() {
  const journals = join(state, 'journals');
  const files = existsSync(journals) ? readdirSync(journals) : [];
  return files.length ? readFileSync(join(journals, files[0]), 'utf8').split('\n').filter((l) => l.startsWith('{"done"')).length : 0;
}

/** Runs the request in the bar of an app slowed down per change written, and kills it (-9) once `n` changes are done. */
async function killedHalfWay(n) {
  const slow = await App.start({ ...env, SCOPE_WEAVER_DEBUG_COMMIT_DELAY_MS: '300' });
  try {
    await slow.use('bar');
    await slow.until('the bar to list its agent', "return document.querySelectorAll('.agent').length > 0");
    const input = await slow.find('#request');
    await slow.wd('POST', slow.s(`/element/${input}/value`), { text: REQUEST });
    await slow.wd('POST', slow.s(`/element/${input}/value`), { text: '\uE007' });
    // Approve each step, then Commit in the diff review.
    await slow.until('the diff review', "const a = document.querySelector('.card-review-step button.approve'); if (a) a.click(); return !!document.querySelector('button.commit')", { timeout: 60000 });
    await slow.run("document.querySelector('button.commit').click()");
    const end = Date.now() + 60000;
    while (journalDone() < n) {
      assert.ok(Date.now() < end, 'the commit never got going');
      await sleep(20);
    }
    spawnSync('pkill', ['-9', '-f', APP]);
  } finally {
    await slow.close();
  }
}

before(async () => {
  const downloads = join(home, 'Downloads');
  mkdirSync(downloads, { recursive: true });
  for (let i = 0; i < 40; i++) {
    const ext = ['jpg', 'pdf', 'mp3', 'csv'][i % 4];
    writeFileSync(join(downloads, `file${String(i).padStart(2, '0')}.${ext}`), `content ${i}\n`);
  }
  cpSync(join(REPO, 'skills'), join(work, 'skills'), { recursive: true });
  original = tree(home);
  await killedHalfWay(5);
  assert.equal(readdirSync(join(state, 'journals')).length, 1, 'a journal is left behind');
  app = await App.start(env);
});

after(async () => {
  await app?.close();
});

test('the app finds the interrupted commit at start and finishes it', async () => {
  await app.use('bar');
  const card = await app.until('the interrupted-commit card', "const c = document.querySelector('.recovery-card'); return c ? c.textContent : false");
  assert.match(card, /A commit was interrupted/);
  assert.match(card, /5 of \d+ changes were applied|of \d+ changes were applied/);
  // Before anything else in the bar.
  const first = await app.run("const host = document.querySelector('.recovery-host'); return !host.hidden && document.querySelector('main.results').firstElementChild === host");
  assert.equal(first, true);
  shot('20-bar-recovery-at-start');
  await app.run("document.querySelector('button.finish-recovery').click()");
  await app.until('the recovery to finish', "return !!document.querySelector('.recovery-done')", { timeout: 60000 });
  shot('21-bar-recovery-finished');
  assert.equal(readdirSync(join(state, 'journals')).length, 0, 'the journal is gone');
  const sorted = Object.keys(tree(join(home, 'Downloads')));
  assert.equal(sorted.length, 40, JSON.stringify(sorted));
  assert.ok(sorted.every((f) => f.includes('/')), `every file sorted: ${JSON.stringify(sorted)}`);
});

test('the recovered run can be undone from Recent after a restart, back to the exact tree', async () => {
  await app.use('bar');
  await app.until('Undo on the recovered run in Recent', "return !!document.querySelector('.history-undo')");
  await app.close();
  app = await App.start(env);
  await app.use('bar');
  const title = await app.until('Undo in Recent after the restart', "const b = document.querySelector('.history-undo'); return b ? b.getAttribute('aria-label') : false");
  assert.match(title, /Organize the files in Downloads/);
  shot('22-bar-undo-after-restart');
  await app.run("document.querySelector('.history-undo').click()");
  await app.until('the undo diff review', "return !!document.querySelector('button.commit')", { timeout: 60000 });
  await app.run("document.querySelector('button.commit').click()");
  await app.until('the undo report', "const r = document.querySelector('.report-text'); return r ? r.textContent : false", { timeout: 60000 });
  shot('23-bar-undo-finished');
  assert.deepEqual(tree(home), original);
  // The history knows the recovered run is undone (Recent shows it "undone" when it is listed again).
  const runs = await app.invoke('committed_runs', { limit: 5 });
  const recovered = runs.ok?.find((r) => !r.undoes);
  assert.ok(recovered?.undone_by, JSON.stringify(runs));
});
