// Graph window: preset positions from graph_view, fit and re-fit, expand/collapse, live updates from pipeline events (runs and undos), rollback_to, "Undo this run".
import { test, expect } from './support/harness.mjs';
import { skills, seedRun } from './support/fixtures.mjs';
import { viewBefore, viewDownloads, viewAfter, viewLarge } from './support/graph-views.mjs';

async function openGraph(app, view = viewBefore(), extra = {}) {
  await app.open('graph', { responses: { graph_view: view, skills_list: skills, rollback_to: null, ...extra } });
  await app.waitForListener('pipeline://event');
  await app.waitForListener('graph://changed');
  await expect.poll(() => app.page.evaluate(() => window.cy?.nodes().length ?? 0)).toBe(view.nodes.length);
}

/** Clicks a node by its rendered position (a real mouse click on the canvas), once layout and fit animations are over. */
async function clickNode(page, id, { dbl = false, offsetY = 0 } = {}) {
  await settled(page);
  const box = await page.locator('#cy').boundingBox();
  const p = await page.evaluate((nid) => window.cy.$id(nid).renderedPosition(), id);
  const x = box.x + p.x;
  const y = box.y + p.y + offsetY;
  if (dbl) await page.mouse.dblclick(x, y);
  else await page.mouse.click(x, y);
}

const pipelineEvent = (event) => ({ run_id: 'r8d93dba5c9df', event });

/** Zoom, pan, and where the whole graph lies on the canvas (rendered coordinates, labels included). */
function viewport(page) {
  return page.evaluate(() => {
    const cy = window.cy;
    const bb = cy.elements().renderedBoundingBox();
    return {
      zoom: cy.zoom(),
      pan: cy.pan(),
      inside: bb.x1 >= -0.5 && bb.y1 >= -0.5 && bb.x2 <= cy.width() + 0.5 && bb.y2 <= cy.height() + 0.5,
      centred: Math.abs((bb.x1 + bb.x2) / 2 - cy.width() / 2) < 2 && Math.abs((bb.y1 + bb.y2) / 2 - cy.height() / 2) < 2,
    };
  });
}

/** Waits until the viewport stops moving: no fit waiting for gliding nodes, no animation, two equal samples. */
async function settled(page) {
  let last = null;
  await expect
    .poll(async () => {
      const busy = await page.evaluate(() => Boolean(window.cy.scratch('fitPending')) || window.cy.animated() || window.cy.nodes().some((n) => n.animated()));
      const v = await viewport(page);
      const same = !busy && last && Math.abs(v.zoom - last.zoom) < 1e-6 && Math.abs(v.pan.x - last.pan.x) < 0.01 && Math.abs(v.pan.y - last.pan.y) < 0.01;
      last = busy ? null : v;
      return same;
    }, { intervals: [150] })
    .toBe(true);
  return last;
}

test('initial view: nodes at the positions Rust gave, compound root, collapsed folders as leaves', async ({ app, page }) => {
  const view = viewBefore();
  await openGraph(app, view);
  expect(await app.calls('graph_view')).toEqual([{ expanded: ['.'], limit: 60 }]);
  const info = await page.evaluate(() => ({
    parents: window.cy.nodes(':parent').map((n) => n.id()),
    downloads: { ...window.cy.$id('Downloads').position(), collapsed: window.cy.$id('Downloads').hasClass('collapsed') },
    notes: window.cy.$id('notes.txt').data('family'),
  }));
  const dl = view.nodes.find((n) => n.id === 'Downloads');
  expect(info.parents).toEqual(['.']);
  expect(info.downloads).toEqual({ x: dl.x, y: dl.y, collapsed: true });
  expect(info.notes).toBe('documents');
  await expect(page.locator('.g-totals')).toHaveText('612 files · 41 folders · 1.4 GB');
  // The fit shows everything, centred, and never zooms in past 1 (the graph is small here).
  expect(await viewport(page)).toMatchObject({ zoom: 1, inside: true, centred: true });
  const labels = await page.evaluate(() => ({ file: window.cy.$id('notes.txt').renderedStyle('font-size'), title: window.cy.$id('.').renderedStyle('font-size') }));
  expect(parseFloat(labels.file)).toBeLessThanOrEqual(12);
  expect(parseFloat(labels.title)).toBeGreaterThan(parseFloat(labels.file));
  await app.screenshot('graph-initial');

  // A smaller window: the automatic fit follows it (zooming out below 1).
  await page.setViewportSize({ width: 720, height: 560 });
  await expect.poll(async () => {
    const v = await viewport(page);
    return { inside: v.inside, centred: v.centred, zoomedOut: v.zoom < 1 };
  }).toEqual({ inside: true, centred: true, zoomedOut: true });
});

test('the view re-fits after a large update, but not after the person zoomed by hand; Fit resumes it', async ({ app, page }) => {
  await openGraph(app, viewBefore());
  const before = await settled(page);
  expect(before.zoom).toBeLessThanOrEqual(1);

  // Opening Downloads (48 files) adds many nodes: the view fits again, zooming out.
  await app.respond('graph_view', viewLarge());
  await clickNode(page, 'Downloads');
  await expect.poll(() => page.evaluate(() => window.cy.nodes().length)).toBe(viewLarge().nodes.length);
  const large = await settled(page);
  expect(large).toMatchObject({ inside: true, centred: true });
  expect(large.zoom).toBeLessThan(before.zoom);

  // The person zooms in with the wheel: later updates keep their viewport.
  const box = await page.locator('#cy').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  const manual = await settled(page);
  expect(manual.zoom).toBeGreaterThan(large.zoom);
  await app.respond('graph_view', viewBefore());
  await app.emit('graph://changed', { reason: 'rollback' });
  await expect.poll(() => page.evaluate(() => window.cy.nodes().length)).toBe(viewBefore().nodes.length);
  await page.waitForTimeout(400);
  const kept = await viewport(page);
  expect(kept.zoom).toBeCloseTo(manual.zoom, 5);
  expect(kept.pan).toEqual(manual.pan);

  // "Fit to window" fits now and makes the view follow the graph again.
  await page.locator('button[title="Fit to window"]').click();
  await expect.poll(async () => (await viewport(page)).centred).toBe(true);
  expect((await settled(page)).zoom).toBeLessThanOrEqual(1);
  await app.respond('graph_view', viewLarge());
  await app.emit('graph://changed', { reason: 'delta' });
  await expect.poll(() => page.evaluate(() => window.cy.nodes().length)).toBe(viewLarge().nodes.length);
  const again = await settled(page);
  expect(again).toMatchObject({ inside: true, centred: true });
  expect(again.zoom).toBeCloseTo(large.zoom, 3);
  await app.screenshot('graph-large-fitted');
});

test('clicking a collapsed folder re-requests the view with it expanded; clicking its title collapses it', async ({ app, page }) => {
  await openGraph(app);
  await app.respond('graph_view', viewDownloads());
  await clickNode(page, 'Downloads');
  await expect.poll(async () => (await app.calls('graph_view')).at(-1)).toEqual({ expanded: ['.', 'Downloads'], limit: 60 });
  await expect.poll(() => page.evaluate(() => window.cy.$id('Downloads').isParent())).toBe(true);
  expect(await page.evaluate(() => window.cy.$id('Downloads/beach.jpg').parent().id())).toBe('Downloads');

  // Clicking a file shows its details.
  await clickNode(page, 'Downloads/setup.dmg');
  await expect(page.locator('.node-info .info-path')).toHaveText('Downloads/setup.dmg');
  await expect(page.locator('.node-info')).toContainText('46 MB');

  // The compound's title sits above its body: a click there collapses it.
  await app.respond('graph_view', viewBefore());
  await settled(page);
  const box = await page.locator('#cy').boundingBox();
  const title = await page.evaluate(() => {
    const bb = window.cy.$id('Downloads').renderedBoundingBox({ includeLabels: true, includeOverlays: false });
    const body = window.cy.$id('Downloads').renderedBoundingBox({ includeLabels: false, includeOverlays: false });
    return { x: (body.x1 + body.x2) / 2, y: (bb.y1 + body.y1) / 2 };
  });
  await page.mouse.click(box.x + title.x, box.y + title.y);
  await expect.poll(async () => (await app.calls('graph_view')).at(-1)).toEqual({ expanded: ['.'], limit: 60 });
  await expect.poll(() => page.evaluate(() => window.cy.$id('Downloads').isParent())).toBe(false);
});

test('pipeline events update the graph: deleted ghosts, moved files at their new parent, step highlight', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  await page.evaluate(() => {
    window.cy.zoom(0.9);
  });
  const zoomBefore = await page.evaluate(() => window.cy.zoom());
  const { events } = seedRun();
  const upto = events.findIndex((e) => e.event === 'graph_delta' && e.step === 3);
  await app.respond('graph_view', viewAfter());
  for (const e of events.slice(0, upto + 1)) await app.emit('pipeline://event', pipelineEvent(e));

  await expect.poll(() => page.evaluate(() => window.cy.$id('Downloads/Images/beach (1).jpg').nonempty())).toBe(true);
  const state = await page.evaluate(() => {
    const cy = window.cy;
    const n = (id) => cy.$id(id);
    return {
      deleted: n('Downloads/beach.jpg').hasClass('deleted'),
      deletedStyle: { opacity: n('Downloads/beach.jpg').style('opacity'), border: n('Downloads/beach.jpg').style('border-style') },
      oldDeleted: n('Downloads/old/beach.jpg').hasClass('deleted'),
      movedParent: n('Downloads/Images/beach (1).jpg').parent().id(),
      movedFrom: n('Downloads/Images/beach (1).jpg').data('from'),
      oldIdGone: n('Downloads/beach (1).jpg').empty(),
      added: n('Downloads/Images').hasClass('added'),
      changed: n('Downloads').hasClass('changed'),
      more: n('Downloads/old/+more').data('label'),
      touched: cy.nodes('.touched').map((x) => x.id()).sort(),
      hl: n('Downloads/Data/export.csv').data('hl'),
      zoom: cy.zoom(),
    };
  });
  expect(state).toMatchObject({
    deleted: true,
    deletedStyle: { border: 'dashed' },
    oldDeleted: true,
    movedParent: 'Downloads/Images',
    movedFrom: 'Downloads/beach (1).jpg',
    oldIdGone: true,
    added: true,
    changed: true,
    more: '+240 files',
    hl: '#10B981',
  });
  // The ghost fades in over a short transition.
  await expect.poll(() => page.evaluate(() => Number(window.cy.$id('Downloads/beach.jpg').style('opacity')))).toBeLessThan(0.6);
  expect(state.touched).toEqual(
    [
      'Downloads/Audio', 'Downloads/Audio/song.mp3', 'Downloads/Data', 'Downloads/Data/export.csv',
      'Downloads/Documents', 'Downloads/Documents/report_final.pdf', 'Downloads/Images', 'Downloads/Images/beach (1).jpg',
    ].sort(),
  );
  expect(state.zoom).toBeCloseTo(zoomBefore, 5); // the viewport is kept

  // Side panel: pipeline with scores and runner-ups, action history with one point per delta.
  await expect(page.locator('.pstep')).toHaveCount(3);
  await expect(page.locator('.pstep[data-step="1"] .pstep-score')).toHaveText('0.72');
  await expect(page.locator('.pstep[data-step="1"] .runnerups li')).toHaveCount(3);
  await expect(page.locator('.pipeline-stage')).toHaveText('Step 3/3 · Snapshot');
  await expect(page.locator('.point')).toHaveCount(3);
  await expect(page.locator('.point[data-snapshot="snap-2"]')).toContainText('3 changes (3 deletions)');

  // Select the moved file: the info panel shows where it came from.
  await page.evaluate(() => {
    window.cy.$id('Downloads/Images/beach (1).jpg').emit('tap');
  });
  await expect(page.locator('.node-info .info-from')).toHaveText('Downloads/beach (1).jpg');
  await page.evaluate(() => {
    window.cy.fit(undefined, 30);
  });
  await app.screenshot('graph-after-delta');

  // graph://changed also re-requests the view.
  const before = (await app.calls('graph_view')).length;
  await app.emit('graph://changed', { reason: 'commit' });
  await expect.poll(async () => (await app.calls('graph_view')).length).toBeGreaterThan(before);
});

test('pipeline steps show their skill\'s vis icon and filled tool label; destructive rollback points are tagged', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  const { events } = seedRun();
  const upto = events.findIndex((e) => e.event === 'graph_delta' && e.step === 3);
  await app.respond('graph_view', viewAfter());
  // Up to the plan: labels from the planned params (the `$step(1)` reference is not shown).
  const planned = events.findIndex((e) => e.event === 'planned');
  for (const e of events.slice(0, planned + 1)) await app.emit('pipeline://event', pipelineEvent(e));
  const step = (n) => page.locator(`.pstep[data-step="${n}"]`);
  await expect(step(1).locator('.pstep-label')).toHaveText('Scan Downloads for duplicates');
  await expect(step(2).locator('.pstep-label')).toHaveText('Remove duplicates (keep newest)');
  await expect(step(3).locator('.pstep-label')).toHaveText('Sort Downloads into type folders');
  for (const e of events.slice(planned + 1, upto + 1)) await app.emit('pipeline://event', pipelineEvent(e));
  await expect(page.locator('.point')).toHaveCount(3);

  // vis.json icons mapped to the app's icons, drawn in the skill's colour.
  await expect(step(1).locator('.pstep-icon')).toHaveAttribute('data-icon', 'copy');
  await expect(step(3).locator('.pstep-icon')).toHaveAttribute('data-icon', 'layers');
  const drawn = await step(3).locator('.pstep-icon').evaluate((el) => ({ paths: el.querySelectorAll('svg > *').length, color: getComputedStyle(el).color }));
  expect(drawn.paths).toBeGreaterThan(0);
  expect(drawn.color).toBe('rgb(16, 185, 129)'); // organize-by-type #10B981
  await expect(step(2).locator('.pstep-label')).toHaveText('Remove duplicates (keep newest)');

  // Only the remove step is destructive (vis.json `destructive: true`).
  await expect(page.locator('.point .destructive-tag')).toHaveCount(1);
  const tag = page.locator('.point[data-snapshot="snap-2"] .destructive-tag');
  await expect(tag).toHaveText('destructive');
  expect(await tag.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(248, 113, 113)');
  await expect(page.locator('.point[data-snapshot="snap-2"]')).toHaveClass(/destructive/);
  await app.screenshot('graph-vis-pipeline');

  // Another run: an unknown placeholder is left out cleanly, the `source` reference too; an unknown skill
  // gets the generic icon and its tool name; an archive point is destructive as well.
  const r2 = (event) => app.emit('pipeline://event', { run_id: 'r2', event });
  await r2({ event: 'request', id: 'r2', text: 'Archive big videos' });
  await r2({
    event: 'planned', planner: 'rule', usage: null, notes: [],
    plan: {
      steps: [
        { step: 1, description: 'find big videos', skill: 'search-files', tool: 'find_large', params: { path: 'Videos' } },
        { step: 2, description: 'archive them', skill: 'archive-files', tool: 'create', params: { source: '$step(1).paths', target: 'big.zip' } },
        { step: 3, description: 'something new', skill: 'my-new-skill', tool: 'do_it', params: {} },
      ],
    },
  });
  await expect(step(1).locator('.pstep-label')).toHaveText('Files in Videos');
  await expect(step(1).locator('.pstep-icon')).toHaveAttribute('data-icon', 'search');
  await expect(step(2).locator('.pstep-label')).toHaveText('Archive → big.zip');
  await expect(step(2).locator('.pstep-icon')).toHaveAttribute('data-icon', 'archive');
  await expect(step(3).locator('.pstep-label')).toHaveText('do_it');
  await expect(step(3).locator('.pstep-icon')).toHaveAttribute('data-icon', 'box');
  // Resolved params replace the planned ones.
  await r2({ event: 'references_resolved', step: 2, params: { source: ['Videos/a.mp4', 'Videos/b.mkv'], target: 'big.zip' } });
  await expect(step(2).locator('.pstep-label')).toHaveText('Archive 2 items → big.zip');
  // Regression: one node from an earlier step read "1 items"; it is named by its path.
  await r2({ event: 'references_resolved', step: 2, params: { source: [{ path: 'Videos/a.mp4', name: 'a.mp4', kind: 'file', size: 10 }], target: 'big.zip' } });
  await expect(step(2).locator('.pstep-label')).toHaveText('Archive Videos/a.mp4 → big.zip');
  await r2({ event: 'skill_matched', step: 2, skill: 'archive-files', tool: 'create', score: 0.8, confident: true, runner_ups: [] });
  await r2({ event: 'graph_delta', step: 2, snapshot: 'snap-2', changes: [], ops: [{ op: 'create_archive', sources: ['Videos/a.mp4'], target: 'big.zip', format: 'zip' }] });
  await expect(page.locator('.point[data-snapshot="snap-2"] .destructive-tag')).toHaveText('destructive');
});

test('"Roll back to here" calls rollback_to; NOT_AT_REVIEW is explained', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  const { events } = seedRun();
  for (const e of events.filter((x) => ['request', 'planned', 'skill_matched', 'graph_delta'].includes(x.event))) {
    await app.emit('pipeline://event', pipelineEvent(e));
  }
  await expect(page.locator('.point')).toHaveCount(3);
  await page.locator('.point[data-snapshot="snap-2"] button.rollback-here').click();
  await expect.poll(() => app.calls('rollback_to')).toEqual([{ snapshot: 'snap-2' }]);
  await expect(page.locator('.toast.ok')).toContainText('Rolled back to snap-2');

  await app.respond('rollback_to', { __error: { code: 'NOT_AT_REVIEW', message: 'no diff review is waiting' } });
  await page.locator('.point[data-snapshot="snap-3"] button.rollback-here').click();
  await expect(page.locator('.toast.error')).toHaveText('Roll back is possible while the final review is open in the bar.');

  // The engine reports the rollback: later points are struck, the view is re-requested.
  const n = (await app.calls('graph_view')).length;
  await app.emit('pipeline://event', pipelineEvent({ event: 'rolled_back', step: 2, snapshot: 'snap-2', undone: 2 }));
  await expect(page.locator('.point.undone')).toHaveCount(2);
  await expect.poll(async () => (await app.calls('graph_view')).length).toBeGreaterThan(n);
  await expect(page.locator('.point[data-snapshot="snap-1"] button.rollback-here')).toBeEnabled();
  await expect(page.locator('.point.undone button.rollback-here')).toHaveCount(2);
  for (const b of await page.locator('.point.undone button.rollback-here').all()) await expect(b).toBeDisabled();
});

test('rollback points close when the run ends, and a new run starts a fresh history', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  const { events } = seedRun();
  const buttons = page.locator('button.rollback-here');
  // The whole recorded run, up to and including its final review, then the commit.
  const review = events.findIndex((e) => e.event === 'stage_started' && e.stage === 'commit');
  for (const e of events.slice(0, review + 1)) await app.emit('pipeline://event', pipelineEvent(e));
  await expect(buttons).toHaveCount(3);
  for (const b of await buttons.all()) await expect(b).toBeEnabled();
  await expect(page.locator('.actions-note')).toHaveCount(0);

  await app.emit('pipeline://event', pipelineEvent({ event: 'diff_reviewed', changes: 11, approved: true }));
  for (const b of await buttons.all()) await expect(b).toBeDisabled();
  await app.emit('pipeline://event', pipelineEvent({ event: 'committed', applied: 11, summary: '11 changes written' }));
  await app.emit('pipeline://event', pipelineEvent({ event: 'finished', committed: true, dry_run: false, text: 'done', stage_ms: {} }));
  await expect(page.locator('.actions .side-head .badge')).toHaveText('Committed');
  await expect(page.locator('.actions-note')).toBeVisible();
  for (const b of await buttons.all()) await expect(b).toBeDisabled();
  await expect(page.locator('.pipeline-state')).toHaveText('Committed');
  await app.screenshot('graph-after-commit');

  // A dry run that only reports (no diff_reviewed) closes them at `finished` too.
  await app.emit('pipeline://event', { run_id: 'r2', event: { event: 'request', id: 'r2', text: 'Tidy Downloads' } });
  await expect(page.locator('.point')).toHaveCount(0);
  await expect(page.locator('.actions .side-head .badge')).toHaveCount(0);
  const delta = events.find((e) => e.event === 'graph_delta' && e.step === 2);
  await app.emit('pipeline://event', { run_id: 'r2', event: delta });
  await expect(buttons).toHaveCount(1);
  await expect(buttons).toBeEnabled();
  await app.emit('pipeline://event', { run_id: 'r2', event: { event: 'finished', committed: false, dry_run: true, text: 'dry', stage_ms: {} } });
  await expect(buttons).toBeDisabled();
  await expect(page.locator('.actions .side-head .badge')).toHaveText('Closed');

  // A failed run closes them as well.
  await app.emit('pipeline://event', { run_id: 'r3', event: { event: 'request', id: 'r3', text: 'x' } });
  await app.emit('pipeline://event', { run_id: 'r3', event: delta });
  await expect(buttons).toBeEnabled();
  await app.emit('pipeline://event', { run_id: 'r3', event: { event: 'failed', code: 'CANCELLED', message: 'cancelled' } });
  await expect(buttons).toBeDisabled();
  await expect(page.locator('.actions .side-head .badge')).toHaveText('Failed');
});

test('an undo started in the bar: the pipeline panel shows its plan in words, then Committed', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  const send = (event) => app.emit('pipeline://event', { run_id: 'u2', event });
  await send({ event: 'request', id: 'u2', text: 'undo r2: Archive everything in Projects/old into old-projects.zip' });
  await send({
    event: 'undo_planned',
    undoes: 'r2',
    changes: 3,
    kept: [{ path: 'Projects/old/notes.txt', reason: 'changed since the run' }, { path: 'Projects/old/todo.md', reason: 'moved away or deleted since the run' }],
    not_restorable: [],
  });
  await expect(page.locator('.pipeline-request')).toHaveText('undo r2: Archive everything in Projects/old into old-projects.zip');
  await expect(page.locator('.pipeline-undo')).toHaveText('Undo of r2: 3 changes; 2 kept as they are');
  await send({ event: 'finished', committed: true, dry_run: false, text: 'Undone', stage_ms: {} });
  await expect(page.locator('.pipeline-state')).toHaveText('Committed');
  // The next run starts without it.
  await app.emit('pipeline://event', { run_id: 'r9', event: { event: 'request', id: 'r9', text: 'Tidy Downloads' } });
  await expect(page.locator('.pipeline-undo')).toHaveCount(0);
});

test('a plan that follows an earlier choice of the person says so in the pipeline panel', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  const send = (event) => app.emit('pipeline://event', { run_id: 'l1', event });
  await send({ event: 'request', id: 'l1', text: 'summarise song.mp3' });
  await send({
    event: 'planned',
    planner: 'rule',
    plan: { steps: [{ step: 1, description: 'summarise song.mp3', skill: 'parse-content', tool: 'metadata', params: { path: 'song.mp3' } }] },
    usage: { planner: 'rule', prompt_tokens: 0, completion_tokens: 0, latency_ms: 1 },
    notes: ['learned from your choice on 2026-11-24: "summarise report.pdf" is parse-content/metadata', 'read as German: "x"'],
  });
  await expect(page.locator('.pipeline-learned')).toHaveText('Learned from your choice on 2026-11-24: "summarise report.pdf" is parse-content/metadata');
  await app.screenshot('graph-pipeline-learned');
  // The next run starts without it.
  await app.emit('pipeline://event', { run_id: 'l2', event: { event: 'request', id: 'l2', text: 'Tidy Downloads' } });
  await expect(page.locator('.pipeline-learned')).toHaveCount(0);
});

test('"Undo this run" after a committed run (an undo\'s too), not after a dry run or a failure; it opens the bar and asks it to undo', async ({ app, page }) => {
  await openGraph(app, viewDownloads(), { open_window: null });
  const undo = page.locator('.pipeline button.pipeline-undo-run');
  const emitted = () => app.calls('plugin:event|emit_to');
  const { events } = seedRun();

  // The recorded seed run is a dry run: nothing was written, nothing to undo.
  for (const e of events) await app.emit('pipeline://event', pipelineEvent(e));
  await expect(page.locator('.pipeline-state')).toHaveText('Done');
  await expect(undo).toHaveCount(0);

  // The same run, committed: the button shows once it has finished, under the request.
  const review = events.findIndex((e) => e.event === 'stage_started' && e.stage === 'commit');
  for (const e of events.slice(0, review + 1)) await app.emit('pipeline://event', pipelineEvent(e));
  await app.emit('pipeline://event', pipelineEvent({ event: 'diff_reviewed', changes: 11, approved: true }));
  await app.emit('pipeline://event', pipelineEvent({ event: 'committed', applied: 11, summary: '11 changes written' }));
  await expect(undo).toHaveCount(0);
  await app.emit('pipeline://event', pipelineEvent({ event: 'finished', committed: true, dry_run: false, text: 'done', stage_ms: {} }));
  await expect(page.locator('.pipeline-state')).toHaveText('Committed');
  await expect(undo).toHaveText('Undo this run');
  await expect(undo.locator('svg')).toHaveCount(1);
  await app.screenshot('graph-undo-this-run');

  // A click shows the bar, then sends it the run to undo (the bar owns the undo's review card).
  await undo.click();
  await expect.poll(emitted).toEqual([
    { target: { kind: 'AnyLabel', label: 'bar' }, event: 'undo://requested', payload: { run_id: 'r8d93dba5c9df', request: events.find((e) => e.event === 'request').text } },
  ]);
  const order = await page.evaluate(() => window.__mock.calls.map((c) => c.cmd).filter((c) => c === 'open_window' || c === 'plugin:event|emit_to'));
  expect(order).toEqual(['open_window', 'plugin:event|emit_to']);
  expect(await app.calls('open_window')).toEqual([{ label: 'bar' }]);
  expect(await app.calls('undo_run')).toEqual([]);

  // The undo, committed, can itself be undone (that redoes the run): the same button, for its own run id.
  const u2 = (event) => app.emit('pipeline://event', { run_id: 'u2', event });
  await u2({ event: 'request', id: 'u2', text: 'undo r8d93dba5c9df: Clean up my Downloads folder' });
  await expect(undo).toHaveCount(0);
  await u2({ event: 'undo_planned', undoes: 'r8d93dba5c9df', changes: 11, kept: [], not_restorable: [] });
  await u2({ event: 'finished', committed: true, dry_run: false, text: 'Undone', stage_ms: {} });
  await undo.click();
  await expect.poll(async () => (await emitted()).at(-1)?.payload).toEqual({ run_id: 'u2', request: 'undo r8d93dba5c9df: Clean up my Downloads folder' });

  // A failed run: no button.
  const r3 = (event) => app.emit('pipeline://event', { run_id: 'r3', event });
  await r3({ event: 'request', id: 'r3', text: 'Tidy Downloads' });
  await r3({ event: 'failed', code: 'CONTENT_UNACCOUNTED', message: '1 entry unaccounted for' });
  await expect(page.locator('.pipeline-state')).toHaveText('Failed');
  await expect(undo).toHaveCount(0);

  // When the bar cannot be shown, the error is said and nothing is sent.
  await app.emit('pipeline://event', { run_id: 'r4', event: { event: 'finished', committed: true, dry_run: false, text: 'done', stage_ms: {} } });
  await app.respond('open_window', { __error: { code: 'UNKNOWN_WINDOW', message: 'there is no window `bar`' } });
  const sent = (await emitted()).length;
  await undo.click();
  await expect(page.locator('.toast.error')).toHaveText('Undo could not start: UNKNOWN_WINDOW: there is no window `bar`');
  expect((await emitted()).length).toBe(sent);
});

test('search finds a visible node by name and selects it', async ({ app, page }) => {
  await openGraph(app, viewDownloads());
  await page.locator('.search-box').fill('report');
  await expect(page.locator('.search-count')).toHaveText('1/2');
  await expect(page.locator('.node-info .info-path')).toHaveText('Downloads/report_final.pdf');
  await page.keyboard.press('Enter');
  await expect(page.locator('.search-count')).toHaveText('2/2');
  await expect(page.locator('.node-info .info-path')).toHaveText('Downloads/report_v1.pdf');
  expect(await page.evaluate(() => window.cy.$(':selected').id())).toBe('Downloads/report_v1.pdf');
  await page.locator('.search-box').fill('nothing-like-this');
  await expect(page.locator('.search-count')).toHaveText('no match');
});

test('graph_view errors are shown with their code', async ({ app, page }) => {
  await app.open('graph', { responses: { graph_view: { __error: { code: 'NO_ROOT', message: 'no working folder is set' } }, skills_list: skills } });
  await expect(page.locator('.g-overlay')).toHaveText(/NO_ROOT: no working folder is set/);
});
