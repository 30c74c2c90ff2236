// Spotlight bar: the seed run end to end, approvals, edits, rollbacks, similar photos, near-miss, clarifications, cancel, history, errors, undo (from the recent list or the graph), recovery, saving a run as a workflow and suggested workflows, the approval inbox (and its items shown in the graph).
import { test, expect } from './support/harness.mjs';
import {
  appInfo,
  agents,
  history,
  skills,
  seedScript,
  SEED_REQUEST,
  undoHistory,
  committedRuns,
  undoScript,
  recoveryReport,
  recoveryFinished,
  recoveryBlocked,
  workflowSaved,
  workflowSuggestions,
  inboxItems,
  inboxPreviews,
  similarReviewStep,
  SIMILAR_WARNING,
} from './support/fixtures.mjs';

const RESPONSES = {
  app_info: appInfo,
  agents,
  history,
  skills_list: skills,
  answer: null,
  cancel_run: null,
  hide_bar: null,
  open_window: null,
  pending_recovery: null,
  committed_runs: [],
  workflow_suggestions: [],
  inbox_list: [],
};

async function openBar(app, extra = {}) {
  await app.open('bar', { responses: { ...RESPONSES, ...extra } });
  await expect(app.page.locator('#request')).toBeFocused();
}

async function startSeed(app, page) {
  await page.locator('#request').fill(SEED_REQUEST);
  await page.keyboard.press('Enter');
  const [args] = await app.waitForCalls('run_request');
  return args;
}

const ev = (event) => ({ kind: 'event', event });

test('idle bar: input focused, agents, working folder, recent requests', async ({ app, page }) => {
  await openBar(app, { app_info: { ...appInfo, shortcut_error: 'Alt+Space is taken by another program' } });
  await expect(page.locator('.agent')).toHaveCount(2);
  await expect(page.locator('.agent[aria-selected="true"]')).toHaveText(/Files/);
  await expect(page.locator('.root-path')).toHaveText('/home/u');
  await expect(page.locator('.shortcut-warning')).toBeVisible();
  await expect(page.locator('.shortcut-warning')).toHaveAttribute('title', /taken by another program/);
  await expect(page.locator('.history-item')).toHaveCount(3);
  await expect(page.locator('.history-item').nth(1).locator('.history-status')).toHaveText('committed');
  await expect(page.locator('.history-item').nth(2).locator('.history-status')).toHaveText('failed');
  expect(await app.calls('history')).toEqual([{ limit: 20 }]);
  // Tab reaches the agents; arrows switch the selection.
  await page.keyboard.press('Tab');
  await expect(page.locator('.agent').first()).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('.agent[aria-selected="true"]')).toHaveText(/Skill author/);
  await expect(page.locator('.agent').nth(1)).toBeFocused();
  await page.locator('#request').fill('Clean up');
  await app.screenshot('bar-idle');
});

test('seed request: stages, destructive approval, organize approval, diff review, commit, report', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  const args = await startSeed(app, page);
  expect(args).toMatchObject({ request: SEED_REQUEST, dry_run: false, hitl: null });
  expect(args.on_event).toMatch(/^__CHANNEL__:\d+$/);

  // Before the plan: the request-level stages.
  await app.send(s.phases[0].slice(0, 4));
  await expect(page.locator('.pre-stage.running')).toHaveText(/Planning/);
  await app.send(s.phases[0].slice(4));
  await expect(page.locator('.plan .step')).toHaveCount(3);
  await expect(page.locator('.run-status')).toHaveText(/Waiting|Step 2\/3 · Review/);
  // Step 1 went through all its stages; the stepper shows them done.
  await expect(page.locator('.step[data-step="1"] .seg.done')).toHaveCount(12);
  await expect(page.locator('.step[data-step="1"]')).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.step[data-step="2"] .seg.running')).toHaveCount(1);
  await expect(page.locator('.step[data-step="2"] .seg[data-stage="hitl"]')).toHaveClass(/running/);

  // Approval card for the remove step: three deletions, styled destructive.
  await app.send(s.questions[0]);
  const card = page.locator('.card-review-step');
  await expect(card).toHaveClass(/destructive/);
  await expect(card.locator('.card-title')).toHaveText('remove duplicates');
  await expect(card.locator('.skill-chip')).toContainText('remove-duplicates');
  await expect(card.locator('.badge.danger')).toContainText('Destructive');
  await expect(card.locator('.tool-label')).toHaveText('Remove duplicates (keep newest)');
  const deletes = card.locator('.op-group.destructive[data-op="delete"] .op-item');
  await expect(deletes).toHaveCount(3);
  await expect(deletes.nth(0)).toContainText('Downloads/beach.jpg');
  await expect(deletes.nth(0)).toContainText('13 B');
  await expect(page.locator('.run-status')).toHaveText('Waiting for you');
  await expect(card.locator('button.approve')).toBeFocused();
  await app.screenshot('bar-approve-destructive');

  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 1, answer: { decision: 'approve' } }]);
  await expect(card).toHaveCount(0);
  await expect(page.locator('.log-row')).toContainText(['Approved step 2']);

  // Organize step: moves and new folders, not destructive.
  await app.send(s.phases[1]);
  await app.send(s.questions[1]);
  const card3 = page.locator('.card-review-step');
  await expect(card3).not.toHaveClass(/destructive/);
  await expect(card3.locator('.op-group[data-op="move"] .op-item')).toHaveCount(4);
  await expect(card3.locator('.op-group[data-op="create_dir"] .op-item')).toHaveCount(4);
  await expect(card3.locator('.card-counts')).toHaveText('4 moves · 4 new folders');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).length).toBe(2);

  // Final diff review: all 11 changes, deletions highlighted, rollback points.
  await app.send(s.phases[2]);
  await app.send(s.questions[2]);
  const diff = page.locator('.card-review-diff');
  await expect(diff.locator('.card-title')).toHaveText('Write 11 changes to disk?');
  await expect(diff.locator('.card-counts')).toHaveText('3 deletions · 4 moves · 4 new folders');
  await expect(diff.locator('.op-group.destructive .op-item')).toHaveCount(3);
  await expect(diff.locator('.rollback-point')).toHaveCount(2);
  await expect(diff.locator('button.commit')).toBeFocused();
  await app.screenshot('bar-diff-review');
  await page.keyboard.press('Control+Enter');
  const answers = await app.calls('answer');
  expect(answers).toEqual([
    { id: 1, answer: { decision: 'approve' } },
    { id: 2, answer: { decision: 'approve' } },
    { id: 3, answer: { decision: 'commit' } },
  ]);

  // Commit, report, the run resolves.
  await app.send(s.phases[3]);
  await app.finishRun(s.report);
  const outcome = page.locator('.outcome');
  await expect(outcome).toHaveClass(/ok/);
  await expect(outcome.locator('.outcome-title')).toHaveText(/Committed · 11 changes written/);
  await expect(outcome.locator('.report-text')).toContainText('Removed 3 duplicate files (saved 46 B). Organized 4 files into 4 subfolders.');
  await expect(page.locator('.plan .step[data-status="done"]')).toHaveCount(3);
  await expect(page.locator('#request')).toBeFocused();
  await expect(page.locator('#request')).toHaveJSProperty('readOnly', false);
  await app.screenshot('bar-report');
  // History is reloaded after the run.
  await app.waitForCalls('history', 2);
});

test('a model planner\'s tokens stream into a "Planning…" area while it thinks; the plan replaces them', async ({ app, page }) => {
  await openBar(app);
  await app.waitForListener('pipeline://token');
  const s = seedScript();
  await startSeed(app, page);
  const runId = s.events.find((e) => e.event === 'request').id;
  const token = (text, id = runId) => app.emit('pipeline://token', { run_id: id, text });
  // A token that comes before the channel's `request` event is kept for it; others' tokens never show.
  await token('{"steps": [');
  await app.send(s.phases[0].slice(0, 4)); // input, request, think started
  await expect(page.locator('.pre-stage.running')).toHaveText(/Planning/);
  await token('{"step": 1, "description": "find groups of identical files", ');
  await token('SOMEONE ELSE', 'r-other');
  const area = page.locator('.plan-tokens');
  await expect(area).toBeVisible();
  await expect(area.locator('.plan-tokens-head')).toHaveText('Planning…');
  await expect(area.locator('.plan-tokens-text')).toHaveText('{"steps": [{"step": 1, "description": "find groups of identical files", ');
  const font = await area.locator('.plan-tokens-text').evaluate((el) => getComputedStyle(el).fontFamily);
  expect(font).toMatch(/mono/i);

  // A long stream: only the last ~400 characters stay, and the area follows the newest text.
  const plan = s.events.find((e) => e.event === 'planned').plan;
  const stream = JSON.stringify(plan).replace(/,"/g, ', "').slice(12, -40);
  for (let i = 0; i < stream.length; i += 40) await token(stream.slice(i, i + 40));
  const text = area.locator('.plan-tokens-text');
  await expect(text).toContainText(stream.slice(-60));
  const shown = await text.evaluate((el) => ({ text: el.textContent, bottom: el.scrollHeight - el.scrollTop - el.clientHeight, overflow: el.scrollHeight > el.clientHeight }));
  expect(shown.text.startsWith('…')).toBe(true);
  expect(shown.text.length).toBeLessThanOrEqual(401);
  expect(shown.text).not.toContain('SOMEONE ELSE');
  expect(shown.overflow).toBe(true);
  expect(shown.bottom).toBeLessThanOrEqual(1);
  await app.screenshot('bar-planner-tokens');

  // `planned` arrives: the plan takes the area's place; later tokens are ignored.
  await app.send(s.phases[0].slice(4));
  await expect(page.locator('.plan .step')).toHaveCount(3);
  await expect(area).toHaveCount(0);
  await token('late');
  await expect(page.locator('.plan-tokens')).toHaveCount(0);
});

test('edit params: invalid JSON is refused, the override sends every edited param', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  await app.send(s.questions[0]);
  const card = page.locator('.card-review-step');
  await card.locator('button.edit').click();
  await expect(card).toHaveClass(/editing/);
  await expect(card.locator('[data-param="groups"]')).toBeFocused();
  await expect(card.locator('[data-param="keep"]')).toHaveValue('newest');
  await app.screenshot('bar-edit-params');

  // Esc leaves edit mode without cancelling the run.
  await page.keyboard.press('Escape');
  await expect(card).not.toHaveClass(/editing/);
  await expect(page.locator('.confirm-cancel')).toBeHidden();

  await card.locator('button.edit').click();
  const groups = card.locator('[data-param="groups"]');
  await groups.fill('[{"hash": ');
  await card.locator('button.apply').click();
  await expect(card.locator('.param-error').first()).toContainText('groups: not valid JSON');
  await expect(card.locator('.param-error').nth(1)).toBeEmpty();
  await expect(groups).toHaveClass(/invalid/);
  expect(await app.calls('answer')).toEqual([]);

  await groups.fill(JSON.stringify(s.reviewStep2.params.groups.slice(0, 1)));
  await card.locator('[data-param="keep"]').fill('oldest');
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('answer')).toEqual([
    { id: 1, answer: { decision: 'override', params: { groups: s.reviewStep2.params.groups.slice(0, 1), keep: 'oldest' } } },
  ]);
});

test('edit params: the tool\'s unset params are offered blank; a filled one is sent, a blank one stays out', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  const unset = [
    { name: 'action', type: 'str', choices: ['remove', 'move', 'hardlink'], doc: 'what happens to the other copies' },
    { name: 'reference', type: 'paths', doc: 'folders of originals that are never touched' },
    { name: 'similar', type: 'bool', doc: 'group photos that look alike' },
  ];
  await app.send({ ...s.questions[0], question: { type: 'review_step', review: { ...s.reviewStep2, unset } } });
  const card = page.locator('.card-review-step');
  await card.locator('button.edit').click();
  await expect(card.locator('.param-unset-head')).toContainText('Not set');
  const action = card.locator('[data-param="action"]');
  await expect(action).toHaveValue('');
  await expect(action.locator('option')).toHaveText(['(default)', 'remove', 'move', 'hardlink']);
  await expect(card.locator('[data-param="reference"]')).toHaveAttribute('placeholder', '(default)');
  await expect(card.locator('[data-param="similar"] option')).toHaveText(['(default)', 'true', 'false']);
  await app.screenshot('bar-edit-params-unset');
  await action.selectOption('hardlink');
  await card.locator('button.apply').click();
  await expect.poll(() => app.calls('answer')).toEqual([
    { id: 1, answer: { decision: 'override', params: { ...s.reviewStep2.params, action: 'hardlink' } } },
  ]);
});

test('tag changes are listed as a Tag group: each file with its new tags and the old ones in the title', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  const ops = [
    { op: 'tag', path: 'Downloads/report.pdf', tags: ['Receipts', 'Taxes 2024'], before: [] },
    { op: 'tag', path: 'Downloads/notes.txt', tags: ['Work'], before: ['Old'] },
  ];
  const review = {
    ...s.reviewStep2,
    skill: 'manage-files',
    tool: 'tag',
    destructive: false,
    params: { source: ['Downloads/report.pdf', 'Downloads/notes.txt'], add: 'Taxes 2024, Receipts' },
    summary: 'Tagged 2 files',
    data: { count: 2 },
    changes: ['# tag    Downloads/report.pdf: Receipts, Taxes 2024 (was no tags)', '# tag    Downloads/notes.txt: Work (was Old)'],
    ops,
  };
  await app.send({ ...s.questions[0], question: { type: 'review_step', review } });
  const group = page.locator('.card-review-step .op-group[data-op="tag"]');
  await expect(group).toContainText('Tag');
  const items = group.locator('.op-item');
  await expect(items).toHaveCount(2);
  await expect(items.first()).toContainText('Downloads/report.pdf');
  await expect(items.first()).toContainText('Receipts, Taxes 2024');
  await expect(items.nth(1)).toHaveAttribute('title', 'Downloads/notes.txt: Work (was Old)');
  await expect(page.locator('.card-review-step')).not.toHaveClass(/destructive/);
});

test('roll back a step, and undo from a rollback point in the diff review', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  await app.send(s.questions[0]);
  await page.locator('.card-review-step button.rollback').click();
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 1, answer: { decision: 'roll_back' } }]);
  await app.send(ev({ event: 'rolled_back', step: 2, snapshot: 'snap-2', undone: 3 }));
  await expect(page.locator('.step[data-step="2"]')).toHaveAttribute('data-status', 'rolled_back');

  await app.send({ ...s.questions[2], id: 9 });
  await page.locator('.rollback-point[data-snapshot="snap-2"] button.undo-from').click();
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 9, answer: { decision: 'roll_back_to', snapshot: 'snap-2' } });
  await expect(page.locator('.log-row').last()).toContainText('Undid step 2 and later');
  // The diff is asked again; Discard this time.
  await app.send({ ...s.questions[2], id: 10 });
  await page.locator('.card-review-diff button.discard').click();
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 10, answer: { decision: 'discard' } });
  await app.send({ kind: 'answered', id: 10 });
  await expect(page.locator('.log-row').last()).toContainText('Discarded every change');

  // A question answered elsewhere (the graph window's rollback_to) closes its card.
  await app.send({ ...s.questions[2], id: 11 });
  await expect(page.locator('.card-review-diff')).toBeVisible();
  await app.send({ kind: 'answered', id: 11 });
  await expect(page.locator('.card-review-diff')).toHaveCount(0);
  await expect(page.locator('.log-row').last()).toContainText('Answered in another window');
  expect((await app.calls('answer')).length).toBe(3);
});

test('similar photos: the approval card shows each group side by side with sizes, resolutions and what happens to each', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  await app.send({ kind: 'question', id: 1, question: { type: 'review_step', review: similarReviewStep() } });
  const card = page.locator('.card-review-step');
  const section = card.locator('.similar-photos');
  await expect(section).toBeVisible();
  await expect(section.getByRole('heading', { name: 'Similar photos' })).toBeVisible();
  await expect(section.locator('.similar-warning')).toBeVisible();
  await expect(section.locator('.similar-warning')).toHaveText(SIMILAR_WARNING);
  await expect(section.locator('.similar-group')).toHaveCount(1);

  // Three tiles, a list of them, in one row.
  const tiles = section.locator('ul.similar-tiles > li.similar-tile');
  await expect(tiles).toHaveCount(3);
  const boxes = await tiles.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
  expect(new Set(boxes.map((b) => Math.round(b.top))).size).toBe(1);
  expect(boxes[0].right).toBeLessThanOrEqual(boxes[1].left);
  expect(boxes[1].right).toBeLessThanOrEqual(boxes[2].left);
  await expect(tiles.locator('.similar-name')).toHaveText(['beach.jpg', 'beach-sent.jpg', 'beach-small.jpg']);
  await expect(tiles.nth(1).locator('.similar-name')).toHaveAttribute('title', 'Photos/beach-sent.jpg');
  await expect(tiles.locator('.similar-res')).toHaveText(['640×480', '640×480', '320×240']);
  await expect(tiles.locator('.similar-size')).toHaveText(['117 KB', '39 KB', '21 KB']);
  await expect(tiles.locator('.badge')).toHaveText(['Keeps', 'Goes to trash', 'Goes to trash']);
  await expect(tiles.nth(0)).toHaveAttribute('data-fate', 'keep');
  // Each box is sized like its image, the group's largest at 96 px.
  const size = (i) => tiles.nth(i).locator('.similar-box').evaluate((el) => [el.offsetWidth, el.offsetHeight]);
  expect(await size(0)).toEqual([96, 72]);
  expect(await size(1)).toEqual([96, 72]);
  expect(await size(2)).toEqual([48, 36]);
  // Above the usual change list, which is still there.
  const before = await section.evaluate((el) => Boolean(el.compareDocumentPosition(el.closest('.card').querySelector('.op-groups')) & Node.DOCUMENT_POSITION_FOLLOWING));
  expect(before).toBe(true);
  await expect(card.locator('.op-group.destructive[data-op="delete"] .op-item')).toHaveCount(2);
  await expect(card.locator('button.approve')).toBeFocused();
  await app.screenshot('bar-approve-similar');

  // Edit params hides it; Esc brings it back; Enter approves as before.
  await card.locator('button.edit').click();
  await expect(section).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(card.locator('.similar-photos .similar-tile')).toHaveCount(3);
  await expect(card.locator('button.approve')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 1, answer: { decision: 'approve' } }]);
  await expect(card).toHaveCount(0);

  // With action: hardlink the others become links to the kept photo.
  await app.send({ kind: 'question', id: 2, question: { type: 'review_step', review: similarReviewStep({ action: 'hardlink' }) } });
  await expect(page.locator('.card-review-step .similar-tile .badge')).toHaveText(['Keeps', 'Becomes a link', 'Becomes a link']);
  await expect(page.locator('.card-review-step .similar-tile').nth(1).locator('.badge')).toHaveAttribute('title', 'Becomes a link: Photos/beach.jpg');
});

test('identical-file groups (no images): the approval card has no "Similar photos" section', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0]);
  await app.send(s.questions[0]);
  const card = page.locator('.card-review-step');
  await expect(card.locator('.op-group.destructive[data-op="delete"] .op-item')).toHaveCount(3);
  await expect(card.locator('.similar-photos')).toHaveCount(0);
  await expect(card.getByText('Similar photos')).toHaveCount(0);
  await expect(card.locator('button.approve')).toBeFocused();
});

test('near-miss picker: number keys pick, Skip sends null', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0].slice(0, 8));
  const question = {
    type: 'choose_skill',
    step: { step: 2, description: 'remove duplicates', skill: 'remove-duplicates', tool: 'remove', params: {} },
    candidates: [
      { skill: 'remove-duplicates', tool: 'remove', score: 0.61, planned: true },
      { skill: 'manage-files', tool: 'delete', score: 0.58, planned: false },
      { skill: 'search-files', tool: 'find', score: 0.31, planned: false },
    ],
  };
  await app.send({ kind: 'question', id: 4, question });
  const card = page.locator('.card-choose-skill');
  await expect(card.locator('.cand')).toHaveCount(3);
  await expect(card.locator('.cand').first().locator('.badge')).toHaveText('planned');
  await expect(card.locator('.cand').first()).toBeFocused();
  // Score bars are proportional to the scores.
  const width = (i) => card.locator('.cand').nth(i).locator('.score > span').evaluate((el) => el.style.width);
  expect(await width(0)).toBe('100%');
  expect(await width(2)).toBe('51%');
  // Arrow keys move between candidates.
  await page.keyboard.press('ArrowDown');
  await expect(card.locator('.cand').nth(1)).toBeFocused();
  await app.screenshot('bar-near-miss');
  await page.keyboard.press('2');
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 4, answer: 1 }]);
  await expect(page.locator('.log-row').last()).toContainText('picked manage-files / delete');

  await app.send({ kind: 'question', id: 5, question: { ...question, step: { ...question.step, step: 3 } } });
  await page.locator('.card-choose-skill button.skip').click();
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 5, answer: null });
});

// Regression (seen in the real app): the engine asked the next question before the answer call
// returned, and the row "picked …" for the answered picker was lost.
test('an answer is logged even when the next question arrives before the answer call returns', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0].slice(0, 8));
  const question = {
    type: 'choose_skill',
    step: { step: 2, description: 'remove duplicates', skill: 'remove-duplicates', tool: 'remove', params: {} },
    candidates: [
      { skill: 'remove-duplicates', tool: 'remove', score: 0.61, planned: true },
      { skill: 'manage-files', tool: 'delete', score: 0.58, planned: false },
    ],
  };
  await page.evaluate((next) => {
    window.__mock.handlers.answer = async () => {
      window.__mock.send({ kind: 'question', id: 5, question: next });
      await new Promise((r) => setTimeout(r, 50));
      return null;
    };
  }, { type: 'clarify_request', question: 'Which folder?' });
  await app.send({ kind: 'question', id: 4, question });
  await expect(page.locator('.card-choose-skill .cand').first()).toBeFocused();
  await page.keyboard.press('1');
  await expect(page.locator('.card-clarify-request input')).toBeFocused();
  await expect(page.locator('.log-row', { hasText: 'picked remove-duplicates / remove' })).toHaveCount(1);
  await expect(page.locator('.card-choose-skill')).toHaveCount(0);
});

test('clarifications: free-text request detail and a typed parameter with its suggestion', async ({ app, page }) => {
  await openBar(app);
  await page.locator('#request').fill('tidy up');
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  await app.send({ kind: 'question', id: 1, question: { type: 'clarify_request', question: 'I did not understand "tidy up". What should I do with it?' } });
  const card = page.locator('.card-clarify-request');
  await expect(card.locator('.card-title')).toContainText('I did not understand "tidy up"');
  await expect(card).not.toContainText('null'); // regression: an absent part of a card was appended as the text "null"
  await expect(card.locator('input')).toBeFocused();
  await page.keyboard.type('remove duplicates in Downloads');
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 1, answer: 'remove duplicates in Downloads' }]);

  await app.send({
    kind: 'question',
    id: 2,
    question: {
      type: 'clarify_param',
      question: { step: 1, skill: 'search-files', tool: 'find_large', param: 'min_size', ty: 'int', doc: 'Smallest size in bytes', question: 'How large at least?', suggestion: 1000 },
    },
  });
  const param = page.locator('.card-clarify-param');
  await expect(param.locator('input')).toHaveValue('1000');
  await expect(param.locator('.card-summary')).toContainText('min_size (int)');
  await app.screenshot('bar-clarify-param');
  await param.locator('input').fill('big');
  await page.keyboard.press('Enter');
  await expect(param.locator('.param-error')).toHaveText('Enter a whole number.');
  await param.locator('input').fill('500000000');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 2, answer: 500000000 });

  await app.send({
    kind: 'question',
    id: 3,
    question: { type: 'clarify_param', question: { step: 2, skill: 'manage-files', tool: 'move', param: 'target', ty: 'path', doc: '', question: 'Move where?', suggestion: '.' } },
  });
  await page.locator('.card-clarify-param button.alt').click();
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 3, answer: null });
});

test('clarify_param with choices: one button each, closest first, picked by click or number key; Leave it sends null', async ({ app, page }) => {
  await openBar(app);
  await page.locator('#request').fill('sort Inbox by meaning');
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  const unsure = (id, file) => ({
    kind: 'question',
    id,
    question: {
      type: 'clarify_param',
      question: {
        step: 1,
        skill: 'sort-documents',
        tool: 'sort',
        param: 'category',
        ty: 'str',
        doc: 'The folder the file goes to',
        question: `Which category is \`${file}\`? I am not sure: closest to Invoices (0.02; next Contracts 0.01): payment, total. Answer Invoices / Recipes / Contracts, a new folder name, or nothing to leave it where it is.`,
        suggestion: null,
        choices: ['Invoices', 'Contracts', 'Recipes'],
      },
    },
  });
  await app.send(unsure(1, 'Inbox/scan_0042.pdf'));
  const card = page.locator('.card-clarify-param');
  const choices = card.locator('button.clarify-choice');
  await expect(choices).toHaveCount(3);
  await expect(card.locator('.choice-name')).toHaveText(['Invoices', 'Contracts', 'Recipes']);
  await expect(choices.locator('kbd')).toHaveText(['1', '2', '3']);
  await expect(choices.nth(0).locator('.badge')).toHaveText('closest');
  await expect(card.locator('.badge', { hasText: 'closest' })).toHaveCount(1);
  await expect(choices.nth(0)).toBeFocused();
  // The field for a new folder name and "Leave it" stay; "Skip this step" does not apply here.
  await expect(card.locator('input.answer-input')).toBeVisible();
  await expect(card.locator('button.clarify-leave')).toHaveText('Leave it');
  await app.screenshot('bar-clarify-choices');
  await choices.nth(1).click();
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 1, answer: 'Contracts' }]);
  await expect(page.locator('.log-row').last()).toContainText('category = "Contracts"');

  await app.send(unsure(2, 'Inbox/scan_0043.pdf'));
  await expect(page.locator('.card-clarify-param button.clarify-choice').first()).toBeFocused();
  await page.keyboard.press('1');
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 2, answer: 'Invoices' });

  // A number typed into the field is text, not a pick; a new folder name is sent as typed.
  await app.send(unsure(3, 'Inbox/scan_0044.pdf'));
  await page.locator('.card-clarify-param input').fill('Taxes');
  await page.keyboard.press('2');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 3, answer: 'Taxes2' });

  await app.send(unsure(4, 'Inbox/scan_0045.pdf'));
  await page.locator('.card-clarify-param button.clarify-leave').click();
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 4, answer: null });
  expect(await app.calls('answer')).toHaveLength(4);

  // Without choices the card is as before: no choice buttons, the field has the focus, "Skip this step".
  await app.send({
    kind: 'question',
    id: 5,
    question: { type: 'clarify_param', question: { step: 2, skill: 'manage-files', tool: 'move', param: 'target', ty: 'path', doc: '', question: 'Move where?', suggestion: '.' } },
  });
  const plain = page.locator('.card-clarify-param');
  await expect(plain.locator('input')).toBeFocused();
  await expect(plain.locator('.clarify-choice')).toHaveCount(0);
  await expect(plain.locator('.clarify-leave')).toHaveCount(0);
  await expect(plain.locator('button.alt')).toHaveText('Skip this step');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).at(-1)).toEqual({ id: 5, answer: '.' });
});

test('cancel: Esc asks, Enter confirms, cancel_run is invoked and the run ends cancelled', async ({ app, page }) => {
  await openBar(app);
  const s = seedScript();
  await startSeed(app, page);
  await app.send(s.phases[0].slice(0, 10));
  await page.locator('#request').focus();
  await page.keyboard.press('Escape');
  const confirm = page.locator('.confirm-cancel');
  await expect(confirm).toBeVisible();
  await expect(confirm.locator('.confirm-yes')).toBeFocused();
  expect(await app.calls('hide_bar')).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(confirm).toBeHidden();

  await page.locator('button.cancel-run').click();
  await expect(confirm).toBeVisible();
  await page.keyboard.press('Enter');
  await app.waitForCalls('cancel_run');
  await expect(page.locator('.run-status')).toHaveText('Cancelling…');
  await app.failRun({ code: 'CANCELLED', message: 'cancelled by the person' });
  await expect(page.locator('.outcome.cancelled')).toHaveText(/Cancelled — nothing was written/);
  await expect(page.locator('.error-card')).toHaveCount(0);
  await expect(page.locator('button.cancel-run')).toHaveCount(0);
});

test('history recall with ArrowUp / ArrowDown in the empty input', async ({ app, page }) => {
  await openBar(app);
  const input = page.locator('#request');
  await expect(page.locator('.history-item')).toHaveCount(3);
  await page.keyboard.press('ArrowUp');
  await expect(input).toHaveValue(history[0].request);
  await page.keyboard.press('ArrowUp');
  await expect(input).toHaveValue(history[1].request);
  await page.keyboard.press('ArrowDown');
  await expect(input).toHaveValue(history[0].request);
  await page.keyboard.press('ArrowDown');
  await expect(input).toHaveValue('');
  // Clicking a recent request puts it in the input.
  await page.locator('.history-item').nth(2).click();
  await expect(input).toHaveValue(history[2].request);
  await expect(input).toBeFocused();
});

test('no history yet: "Try" suggestions, icon then text packed to the left; a click fills the input', async ({ app, page }) => {
  await openBar(app, { history: [] });
  const rows = page.locator('button.example');
  await expect(rows).toHaveCount(3);
  await expect(page.locator('.recent .section-title')).toHaveText('Try');
  // One layout for every row: the icon at the row's left edge, the text right after it, filling the rest.
  const geo = await rows.evaluateAll((els) =>
    els.map((el) => {
      const row = el.getBoundingClientRect();
      const ico = el.querySelector('.example-icon').getBoundingClientRect();
      const text = el.querySelector('.example-text').getBoundingClientRect();
      return { iconLeft: ico.left - row.left, iconWidth: ico.width, gap: text.left - ico.right, textRight: row.right - text.right, spinner: !!el.querySelector('.spinner') };
    }),
  );
  for (const g of geo) {
    expect(g.iconLeft).toBeLessThanOrEqual(12);
    expect(g.iconWidth).toBeLessThanOrEqual(16);
    expect(g.gap).toBeGreaterThanOrEqual(6);
    expect(g.gap).toBeLessThanOrEqual(14);
    expect(g.textRight).toBeLessThanOrEqual(12);
    expect(g.spinner).toBe(false);
  }
  await app.screenshot('bar-try');
  await rows.nth(1).click();
  await expect(page.locator('#request')).toHaveValue('Find files larger than 500 MB in Videos');
});

test('Esc hides the idle bar; window links call open_window', async ({ app, page }) => {
  await openBar(app);
  await page.keyboard.press('Escape');
  await expect.poll(() => app.calls('hide_bar')).toEqual([{}]);
  await page.locator('button.open-graph').click();
  await page.locator('button.open-editor').click();
  await page.locator('button.open-settings').click();
  await expect.poll(() => app.calls('open_window')).toEqual([{ label: 'graph' }, { label: 'editor' }, { label: 'settings' }]);
});

test('a failed run shows its code and message', async ({ app, page }) => {
  await openBar(app);
  await page.locator('#request').fill('Rename my photos by date');
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  await app.send([ev({ event: 'stage_started', stage: 'input', step: null }), ev({ event: 'stage_started', stage: 'think', step: null })]);
  await app.failRun({ code: 'PLAN_INVALID', message: 'step 1: no skill renames files by EXIF date' });
  const err = page.locator('.error-card');
  await expect(err).toBeVisible();
  await expect(err.locator('.error-code')).toHaveText('PLAN_INVALID');
  await expect(err.locator('.error-message')).toHaveText('step 1: no skill renames files by EXIF date');
  await expect(page.locator('.run-status')).toHaveText('Failed');
  await app.screenshot('bar-error');
  // Typing a new request brings the recent list back.
  await page.locator('#request').fill('Find large files');
  await expect(page.locator('.error-card')).toHaveCount(0);
  await expect(page.locator('.history-item').first()).toBeVisible();
});

test('dry run: the diff review only offers Close, which discards', async ({ app, page }) => {
  await openBar(app);
  await page.locator('label.toggle').click();
  const s = seedScript({ dryRun: true });
  const args = await startSeed(app, page);
  expect(args.dry_run).toBe(true);
  await app.send(s.phases[0]);
  await app.send({ kind: 'question', id: 3, question: s.questions[2].question });
  const diff = page.locator('.card-review-diff');
  await expect(diff.locator('.card-title')).toHaveText('Dry run — nothing will be written');
  await expect(diff.locator('button')).toHaveCount(1);
  await expect(diff.locator('button.close')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 3, answer: { decision: 'discard' } }]);
  await app.send(s.phases[3]);
  await app.finishRun(s.report);
  await expect(page.locator('.outcome.info .outcome-title')).toHaveText('Dry run · nothing was written');
});

// ---------------------------------------------------------------- interrupted commit

test('an interrupted commit is shown first; "Finish it" calls finish_recovery and clears the card', async ({ app, page }) => {
  await openBar(app, { pending_recovery: recoveryReport });
  await app.waitForListener('graph://changed');
  const card = page.locator('.recovery-card');
  await expect(card).toBeVisible();
  // Before anything else in the results area: above the recent list.
  expect(await page.locator('.results').evaluate((el) => el.firstElementChild.contains(el.querySelector('.recovery-card')))).toBe(true);
  const [cardBox, recentBox] = [await card.boundingBox(), await page.locator('.recent').boundingBox()];
  expect(cardBox.y + cardBox.height).toBeLessThanOrEqual(recentBox.y);
  await expect(card.locator('.card-title')).toHaveText('A commit was interrupted');
  await expect(card.locator('.recovery-root')).toHaveText('/home/u');
  await expect(card.locator('.recovery-progress')).toContainText('3 of 8 changes were applied');
  await expect(card.locator('.recovery-op')).toHaveText(recoveryReport.in_doubt[0]);
  await expect(card.locator('.recovery-verdict')).toHaveText('applied');
  await expect(card.locator('.recovery-lines li.code')).toHaveText(recoveryReport.pending.slice(0, 3));
  await expect(card.locator('.recovery-more')).toHaveText('+ 1 more');
  await expect(page.locator('.history-item')).toHaveCount(3);
  await app.screenshot('bar-recovery');

  // Finished: the journal is gone, so pending_recovery has nothing to report any more.
  await page.evaluate((done) => {
    window.__mock.handlers.finish_recovery = () => {
      window.__mock.responses.pending_recovery = null;
      return done;
    };
  }, recoveryFinished);
  await card.getByRole('button', { name: 'Finish it' }).click();
  await expect.poll(() => app.calls('finish_recovery')).toEqual([{}]);
  await expect(card).toHaveCount(0);
  await expect(page.locator('.recovery-done')).toContainText('Finished: the remaining changes were applied');
  await expect(page.locator('.recovery-done')).toContainText('4 changes written now');
  await expect(page.locator('.history-item')).toHaveCount(3);

  // Another working folder with an interrupted commit of its own: checked again, the card is back.
  const before = (await app.calls('pending_recovery')).length;
  await app.respond('pending_recovery', { ...recoveryReport, root: '/data', in_doubt: null, pending: ['mkdir Photos/2024/'] });
  await app.emit('graph://changed', { reason: 'root' });
  await app.waitForCalls('pending_recovery', before + 1);
  await expect(page.locator('.recovery-card .recovery-root')).toHaveText('/data');
  await expect(page.locator('.recovery-card .recovery-doubt')).toHaveCount(0);
  await expect(page.locator('.recovery-card .recovery-more')).toHaveCount(0);
  await expect(page.locator('.recovery-done')).toHaveCount(0);
});

test('finish_recovery blocked by conflicts lists their paths; an error shows its code', async ({ app, page }) => {
  await openBar(app, { pending_recovery: recoveryReport, finish_recovery: recoveryBlocked });
  const card = page.locator('.recovery-card');
  await card.getByRole('button', { name: 'Finish it' }).click();
  const conflicts = card.locator('.recovery-conflict');
  await expect(conflicts).toHaveCount(2);
  await expect(card.locator('.recovery-conflicts h4')).toHaveText('2 conflicts block finishing it');
  await expect(conflicts.nth(0).locator('.conflict-path')).toHaveText('Downloads/Documents/report_final.pdf');
  await expect(conflicts.nth(0)).toContainText('something already sits there');
  await expect(conflicts.nth(1).locator('.conflict-path')).toHaveText('Downloads/song.mp3');
  await expect(conflicts.nth(1)).toContainText('no longer exists');
  // Still open, and the button works again.
  const finish = card.getByRole('button', { name: 'Finish it' });
  await expect(finish).toBeEnabled();
  await expect(finish).toBeFocused();
  await expect(page.locator('.recovery-done')).toHaveCount(0);
  await app.screenshot('bar-recovery-conflicts');

  await app.respond('finish_recovery', { __error: { code: 'RUN_BUSY', message: 'a request is running' } });
  await finish.click();
  await expect(card.locator('.recovery-error .error-code')).toHaveText('RUN_BUSY');
  await expect(card.locator('.recovery-error')).toContainText('a request is running');
  expect((await app.calls('finish_recovery')).length).toBe(2);
});

test('a run refused with PENDING_JOURNAL brings up the interrupted commit above its error', async ({ app, page }) => {
  await openBar(app);
  await expect(page.locator('.history-item')).toHaveCount(3);
  await expect(page.locator('.recovery-card')).toHaveCount(0);
  await page.locator('#request').fill('Find files larger than 500 MB in Videos');
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  await app.respond('pending_recovery', recoveryReport);
  await app.failRun({ code: 'PENDING_JOURNAL', message: 'an interrupted commit of /home/u must be finished first' });
  await expect(page.locator('.error-card .error-code')).toHaveText('PENDING_JOURNAL');
  await expect(page.locator('.recovery-card')).toBeVisible();
  const [cardBox, errBox] = [await page.locator('.recovery-card').boundingBox(), await page.locator('.error-card').boundingBox()];
  expect(cardBox.y).toBeLessThan(errBox.y);
});

// ---------------------------------------------------------------- undo

test('Undo in the recent list: only for runs in effect; undo_run streams into the run view, its diff review commits', async ({ app, page }) => {
  await openBar(app, { history: undoHistory, committed_runs: committedRuns });
  const row = (id) => page.locator(`.history-row[data-run="${id}"]`);
  await expect(page.locator('.history-item')).toHaveCount(5);
  expect(await app.calls('committed_runs')).toEqual([{ limit: 20 }]);
  // r2 is in effect; r4 was undone (by u1); u1, an undo, is in effect too; r3 and r1 wrote nothing.
  await expect(page.locator('.history-undo')).toHaveCount(2);
  const undo = row('r2').locator('.history-undo');
  await expect(undo).toHaveText('Undo');
  await expect(undo).toHaveAttribute('title', 'Undo this run');
  await expect(row('u1').locator('.history-undo')).toHaveAttribute('title', 'Undo this undo (puts the changes of r4 back)');
  await expect(row('r4').locator('.history-undone')).toHaveText('undone');
  await expect(row('r4').locator('.history-undone')).toHaveClass(/muted/);
  for (const id of ['r3', 'r1']) {
    await expect(row(id).locator('.history-undo, .history-undone')).toHaveCount(0);
  }
  await app.screenshot('bar-history-undo');

  // The button starts the undo and nothing else (no recall of the request into the input).
  await undo.click();
  const [args] = await app.waitForCalls('undo_run');
  expect(args).toMatchObject({ run_id: 'r2', dry_run: false });
  expect(args.on_event).toMatch(/^__CHANNEL__:\d+$/);
  await expect(page.locator('#request')).toHaveValue('');
  expect(await app.calls('run_request')).toEqual([]);
  const run = page.locator('.run[data-kind="undo"]');
  await expect(run.locator('.run-title')).toHaveText('Undo “Archive everything in Projects/old into old-projects.zip”');
  await expect(run.locator('.run-status')).toHaveText('Planning the undo…');

  // undo_planned: what turns back, what stays as it is and why, what cannot come back.
  const u = undoScript();
  await app.send(u.before);
  const plan = run.locator('.undo-plan');
  await expect(plan.locator('.undo-plan-text')).toHaveText('Undo of r2: 3 changes; 1 kept as it is; 1 not restorable');
  await expect(plan.locator('.undo-kept .undo-path')).toHaveText('Projects/old/notes.txt');
  await expect(plan.locator('.undo-kept .undo-reason')).toHaveText('changed since the run');
  await expect(plan.locator('.undo-lost')).toHaveText('Projects/old/build.log was deleted permanently');
  // The warnings naming those paths repeat the plan: not logged twice.
  await expect(run.locator('.log-row')).toHaveCount(0);
  await expect(run.locator('.preplan-row')).toHaveCount(0);

  // The undo's diff review is the run's review_diff card.
  await app.send(u.question);
  const diff = page.locator('.card-review-diff');
  await expect(diff.locator('.card-title')).toHaveText('Write 3 changes to disk?');
  await expect(diff.locator('.op-group[data-op="restore"] .op-item')).toHaveCount(2);
  await expect(diff.locator('.op-group[data-op="restore"] .op-item').first()).toContainText('2.0 MB');
  await expect(diff.locator('.op-group.destructive[data-op="delete"] .op-item')).toHaveText(/old-projects\.zip/);
  await expect(diff.locator('.rollback-point')).toHaveCount(0);
  await expect(diff).not.toContainText('null');
  // The engine's summary lines stay lines: the plan, then the accounting.
  await expect(diff.locator('.card-summary')).toContainText('Nothing lost: 3 entries accounted for.');
  await expect(diff.locator('.card-summary')).toHaveCSS('white-space', 'pre-line');
  await expect(diff.locator('button.commit')).toBeFocused();
  await expect(run.locator('.run-status')).toHaveText('Waiting for your review');
  await app.screenshot('bar-undo-review');
  await diff.locator('button.commit').click();
  await expect.poll(() => app.calls('answer')).toEqual([{ id: 21, answer: { decision: 'commit' } }]);
  await expect(diff).toHaveCount(0);
  await expect(run.locator('.log-row').last()).toContainText('Committed the changes');

  // The engine now knows r2 as undone (by u2): the history reloaded after the undo shows it.
  await app.respond('history', [{ run_id: 'u2', at: new Date().toISOString(), request: 'undo r2: Archive everything in Projects/old into old-projects.zip', status: 'done', steps: 0, committed: true, error: null }, ...undoHistory]);
  await app.respond('committed_runs', [
    { id: 'u2', request: 'undo r2: Archive everything in Projects/old into old-projects.zip', root: '/home/u', committed_at: Math.round(Date.now() / 1000), changes: 3, undoes: 'r2', undone_by: null, not_restorable: 1 },
    ...committedRuns.map((r) => (r.id === 'r2' ? { ...r, undone_by: 'u2' } : r)),
  ]);
  await app.send(u.after);
  await app.finishRun(u.report);
  const outcome = page.locator('.outcome');
  await expect(outcome).toHaveClass(/ok/);
  await expect(outcome.locator('.outcome-title')).toHaveText('Undone · 3 changes written');
  await expect(outcome.locator('.report-text')).toContainText('Undone: 2 restored from the trash, 1 deleted.');
  await expect(outcome.locator('.outcome-head .faint')).toHaveCount(0); // an undo has no stage times
  await expect(run.locator('.run-status')).toHaveText('Done');
  await app.screenshot('bar-undo-report');
  await app.waitForCalls('committed_runs', 2);
  await app.waitForCalls('history', 2);

  // Back to the recent list: r2 is undone now, and nothing is left to undo.
  await page.locator('#request').fill('F');
  await expect(row('r2').locator('.history-undone')).toHaveText('undone');
  // The undo itself can be undone (the run's changes come back).
  await expect(page.locator('.history-undo')).toHaveCount(2);
  await expect(row('u2').locator('.history-undo')).toHaveAttribute('title', 'Undo this undo (puts the changes of r2 back)');
});

test('the graph\'s "Undo this run" (undo://requested) starts the same undo as the recent list\'s Undo', async ({ app, page }) => {
  await openBar(app, { history: undoHistory, committed_runs: committedRuns });
  await app.waitForListener('undo://requested');
  await expect(page.locator('.history-item')).toHaveCount(5);
  await app.emit('undo://requested', { run_id: 'r2', request: 'Archive everything in Projects/old into old-projects.zip' });
  const [args] = await app.waitForCalls('undo_run');
  expect(args).toMatchObject({ run_id: 'r2', dry_run: false });
  expect(args.on_event).toMatch(/^__CHANNEL__:\d+$/);
  expect(await app.calls('run_request')).toEqual([]);
  const run = page.locator('.run[data-kind="undo"]');
  await expect(run.locator('.run-title')).toHaveText('Undo “Archive everything in Projects/old into old-projects.zip”');
  await expect(run.locator('.run-status')).toHaveText('Planning the undo…');

  // Its diff review is asked here, like any undo's.
  const u = undoScript();
  await app.send(u.before);
  await app.send(u.question);
  await expect(page.locator('.card-review-diff button.commit')).toBeFocused();
  // A second request while it runs starts nothing more (the engine would refuse it with RUN_BUSY).
  await app.emit('undo://requested', { run_id: 'u1', request: 'undo r4: Sort Pictures by year' });
  await page.waitForTimeout(100);
  expect(await app.calls('undo_run')).toHaveLength(1);
  await page.locator('.card-review-diff button.commit').click();
  await app.send(u.after);
  await app.finishRun(u.report);
  await expect(page.locator('.outcome-title')).toHaveText('Undone · 3 changes written');

  // A run the recent list does not know yet (an undo, here) is undone too, titled by the request the graph sent.
  await app.emit('undo://requested', { run_id: 'u2', request: 'undo r2: Archive everything in Projects/old into old-projects.zip' });
  await app.waitForCalls('undo_run', 2);
  expect((await app.calls('undo_run'))[1]).toMatchObject({ run_id: 'u2', dry_run: false });
  await expect(run.locator('.run-title')).toHaveText('Undo “undo r2: Archive everything in Projects/old into old-projects.zip”');
});

test('without committed_runs the recent list has no Undo buttons', async ({ app, page }) => {
  await openBar(app, { history: undoHistory, committed_runs: { __error: { code: 'IPC_ERROR', message: 'command committed_runs not found' } } });
  await expect(page.locator('.history-item')).toHaveCount(5);
  await expect(page.locator('.history-error')).toHaveCount(0);
  await expect(page.locator('.history-undo, .history-undone, .history-action, .history-save, .history-save-slot')).toHaveCount(0);
});

test('an undo refused with RUN_ALREADY_UNDONE shows its code', async ({ app, page }) => {
  await openBar(app, {
    history: undoHistory,
    committed_runs: committedRuns,
    undo_run: { __error: { code: 'RUN_ALREADY_UNDONE', message: 'r2 was already undone by u2' } },
  });
  await page.locator('.history-row[data-run="r2"] .history-undo').click();
  expect(await app.lastCall('undo_run')).toMatchObject({ run_id: 'r2', dry_run: false });
  const err = page.locator('.error-card');
  await expect(err.locator('.error-code')).toHaveText('RUN_ALREADY_UNDONE');
  await expect(err.locator('.outcome-title')).toHaveText('The undo failed');
  await expect(err.locator('.error-message')).toHaveText('r2 was already undone by u2');
  await expect(page.locator('.run-status')).toHaveText('Failed');
  await expect(page.locator('#request')).toBeFocused();
  await app.screenshot('bar-undo-error');
  await app.waitForCalls('history', 2);
});

// ---------------------------------------------------------------- saved workflows

const ARCHIVE_REQUEST = 'Archive everything in Projects/old into old-projects.zip';

test('"Save as workflow" in the recent list: only for runs in effect that are not undos; the name is checked, saved, confirmed', async ({ app, page }) => {
  await openBar(app, { history: undoHistory, committed_runs: committedRuns, workflow_save: workflowSaved });
  const row = (id) => page.locator(`.history-row[data-run="${id}"]`);
  await expect(page.locator('.history-item')).toHaveCount(5);
  // r2 is in effect; u1 is an undo, r4 was undone, r3 and r1 wrote nothing.
  await expect(page.locator('.history-save')).toHaveCount(1);
  const save = row('r2').locator('.history-save');
  await expect(save).toHaveText('Save as workflow');
  await expect(save).toHaveAttribute('aria-label', `Save as workflow: ${ARCHIVE_REQUEST}`);
  await expect(save).toHaveAttribute('aria-expanded', 'false');
  for (const id of ['u1', 'r4', 'r3', 'r1']) await expect(row(id).locator('.history-save')).toHaveCount(0);
  // The columns stay aligned: every status badge ends at the same x, every row keeps one line.
  const rights = await page.locator('.history-status').evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().right)));
  expect(new Set(rights).size).toBe(1);
  const heights = await page.locator('.history-row').evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().height)));
  expect(Math.max(...heights)).toBeLessThanOrEqual(34);

  // From the keyboard: the form opens in the row (no prompt), its name made from the request.
  await save.focus();
  await page.keyboard.press('Enter');
  const form = row('r2').locator('.workflow-form');
  const name = form.getByRole('textbox', { name: 'Workflow name' });
  await expect(name).toBeFocused();
  await expect(name).toHaveValue('archive-everything-projects-old');
  await expect(save).toHaveAttribute('aria-expanded', 'true');
  await expect(form).toHaveAttribute('aria-label', `Save as workflow: ${ARCHIVE_REQUEST}`);
  await expect(page.locator('#request')).toHaveValue('');

  // The engine's rule for skill names, checked before anything is sent.
  const error = form.locator('.workflow-error');
  await name.fill('Tidy Inbox!');
  await page.keyboard.press('Enter');
  await expect(error).toHaveText('Use lowercase letters, digits and hyphens only, such as tidy-downloads.');
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveClass(/invalid/);
  await name.fill('-tidy'); // checked again as it is typed
  await expect(error).toHaveText('A name cannot start or end with a hyphen.');
  await name.fill('t'.repeat(65));
  await expect(error).toHaveText('At most 64 characters (this one has 65).');
  await name.fill('');
  await expect(error).toHaveText('Give the workflow a name, such as tidy-downloads.');
  await name.fill('tidy');
  await expect(error).toBeHidden();
  await expect(name).toHaveAttribute('aria-invalid', 'false');
  expect(await app.calls('workflow_save')).toEqual([]);

  // Escape closes the form (not the bar); the focus goes back to the button.
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  await expect(save).toBeFocused();
  await expect(save).toHaveAttribute('aria-expanded', 'false');
  expect(await app.calls('hide_bar')).toEqual([]);
  // Cancel does the same.
  await save.click();
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toHaveCount(0);

  // Enter saves run r2 under the name typed; the confirmation says how to run it again.
  await save.click();
  await expect(name).toHaveValue('archive-everything-projects-old');
  await name.fill('tidy');
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('workflow_save')).toEqual([{ run_id: 'r2', name: 'tidy' }]);
  const saved = row('r2').locator('.workflow-saved');
  await expect(saved.locator('.workflow-saved-text')).toHaveText('Saved “tidy”. Say “tidy Projects/old” to run it again.');
  await expect(saved.locator('.workflow-steps')).toHaveText('search-files/find → archive-files/create');
  await expect(saved).toHaveAttribute('role', 'status');
  await expect(saved).toBeFocused();
  await expect(form).toHaveCount(0);
  // What the engine suggests may have changed.
  await app.waitForCalls('workflow_suggestions', 2);
  await app.screenshot('bar-workflow-saved');
  // The same run under another name: the button opens a new form in the confirmation's place.
  await save.click();
  await expect(name).toHaveValue('archive-everything-projects-old');
  await expect(saved).toHaveCount(0);
});

test('"Save as workflow": an error from the engine shows under the name and the form stays for another one', async ({ app, page }) => {
  await openBar(app, {
    history: undoHistory,
    committed_runs: committedRuns,
    workflow_save: { __error: { code: 'SKILL_EXISTS', message: 'a skill named `tidy` already exists; choose another name' } },
  });
  const row = page.locator('.history-row[data-run="r2"]');
  await row.locator('.history-save').click();
  const form = row.locator('.workflow-form');
  const name = form.getByRole('textbox', { name: 'Workflow name' });
  await name.fill('tidy');
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  // The engine's `name` quoting shows as code.
  await expect(form.locator('.workflow-error')).toHaveText('a skill named tidy already exists; choose another name');
  await expect(form.locator('.workflow-error .code')).toHaveText('tidy');
  await expect(form.locator('.workflow-error')).toHaveAttribute('role', 'alert');
  expect(await app.calls('workflow_save')).toEqual([{ run_id: 'r2', name: 'tidy' }]);
  await expect(name).toHaveValue('tidy');
  await expect(name).toBeFocused();
  await expect(form.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
  await expect(row.locator('.workflow-saved')).toHaveCount(0);
  await app.screenshot('bar-workflow-exists');

  // Another name goes through.
  await app.respond('workflow_save', { ...workflowSaved, name: 'tidy-projects', triggers: ['tidy projects {path}', 'archive everything in {path} into old-projects.zip'] });
  await name.fill('tidy-projects');
  await page.keyboard.press('Enter');
  await expect(row.locator('.workflow-saved-text')).toHaveText('Saved “tidy-projects”. Say “tidy projects Projects/old” to run it again.');
  expect((await app.calls('workflow_save'))[1]).toEqual({ run_id: 'r2', name: 'tidy-projects' });
});

test('suggested workflows: a card per repeated sequence (two at most) above the list; saving one saves its newest run', async ({ app, page }) => {
  await openBar(app, { history: undoHistory, committed_runs: committedRuns, workflow_suggestions: workflowSuggestions });
  const cards = page.locator('.workflow-suggestion');
  await expect(cards).toHaveCount(2);
  expect(await app.calls('workflow_suggestions')).toEqual([{}]);
  const first = cards.nth(0);
  await expect(first.locator('.workflow-suggestion-text')).toHaveText('You did this 3 times: remove-duplicates → organize-by-type (Inbox, Desktop, Downloads)');
  await expect(first.locator('.workflow-suggestion-text')).toHaveAttribute('title', workflowSuggestions[0].requests.join('\n'));
  await expect(cards.nth(1).locator('.workflow-suggestion-text')).toHaveText('You did this 3 times: archive-files → manage-files (Projects/old, Scans, Projects/2019)');
  // Above the recent list.
  const [lastCard, list] = [await cards.nth(1).boundingBox(), await page.locator('.history').boundingBox()];
  expect(lastCard.y + lastCard.height).toBeLessThanOrEqual(list.y);

  // The same name form, prefilled with the engine's name for the sequence.
  const button = first.getByRole('button', { name: 'Save as workflow: remove-duplicates → organize-by-type' });
  await button.click();
  const name = first.getByRole('textbox', { name: 'Workflow name' });
  await expect(name).toBeFocused();
  await expect(name).toHaveValue('remove-duplicates-then-organize-by-type');
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  // A row's form may be open at the same time.
  await page.locator('.history-row[data-run="r2"] .history-save').click();
  await expect(page.locator('.history-row[data-run="r2"] .workflow-form')).toBeVisible();
  await app.screenshot('bar-workflow-suggestions');

  // Saved: the engine no longer suggests it.
  await page.evaluate(([saved, rest]) => {
    window.__mock.handlers.workflow_save = (args) => {
      window.__mock.responses.workflow_suggestions = rest;
      return { ...saved, name: args.name, run_id: args.run_id };
    };
  }, [{ ...workflowSaved, triggers: ['tidy {path}', 'tidy inbox'], steps: workflowSuggestions[0].signature, folder: 'Inbox' }, workflowSuggestions.slice(1)]);
  await name.fill('tidy');
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('workflow_save')).toEqual([{ run_id: 'r9', name: 'tidy' }]);
  await app.waitForCalls('workflow_suggestions', 2);
  const saved = page.locator('.workflow-suggestions .workflow-saved');
  await expect(saved.locator('.workflow-saved-text')).toHaveText('Saved “tidy”. Say “tidy Inbox” to run it again.');
  await expect(saved.locator('.workflow-steps')).toHaveText('remove-duplicates/remove → organize-by-type/organize');
  await expect(saved).toBeFocused();
  // The other two are left, both shown now; the row's form is still open.
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toHaveAttribute('data-name', 'archive-files-then-manage-files');
  await expect(cards.nth(1).locator('.workflow-suggestion-text')).toHaveText('You did this 3 times: batch-rename/rename → batch-rename/rename_one (the working folder)');
  await expect(page.locator('.history-row[data-run="r2"] .workflow-form')).toBeVisible();
});

test('a failing workflow_suggestions leaves the recent list, its Undo and "Save as workflow" as they are', async ({ app, page }) => {
  await openBar(app, {
    history: undoHistory,
    committed_runs: committedRuns,
    workflow_suggestions: { __error: { code: 'IPC_ERROR', message: 'command workflow_suggestions not found' } },
  });
  await expect(page.locator('.history-item')).toHaveCount(5);
  await app.waitForCalls('workflow_suggestions');
  await expect(page.locator('.history-error')).toHaveCount(0);
  await expect(page.locator('.workflow-suggestion')).toHaveCount(0);
  await expect(page.locator('.workflow-suggestions')).toBeHidden();
  await expect(page.locator('.history-undo')).toHaveCount(2);
  await expect(page.locator('.history-save')).toHaveCount(1);
});

// ---------------------------------------------------------------- the approval inbox

test('the inbox: items above the suggestions and Recent, with counts, a "deletes" badge, the first 3 diff lines and "+N more"; the footer counts them', async ({ app, page }) => {
  const items = inboxItems();
  await openBar(app, { history: undoHistory, committed_runs: committedRuns, workflow_suggestions: workflowSuggestions, inbox_list: items });
  const inbox = page.getByRole('region', { name: 'Inbox', exact: true });
  const cards = inbox.locator('.inbox-item');
  await expect(cards).toHaveCount(2);
  expect(await app.calls('inbox_list')).toEqual([{}]);
  await expect(inbox.locator('.section-title')).toHaveText('Inbox · 2 waiting for you');

  // The Downloads item deletes: its badge, its three first lines, then how many more.
  const first = cards.nth(0);
  await expect(first).toHaveAttribute('aria-label', `Inbox: ${SEED_REQUEST}`);
  await expect(first).toHaveClass(/destructive/);
  await expect(first.locator('.inbox-request')).toHaveText(SEED_REQUEST);
  await expect(first.locator('.inbox-root')).toHaveText('/home/u');
  await expect(first.locator('.inbox-counts')).toHaveText('3 deletions · 4 moves · 4 new folders');
  await expect(first.locator('.badge.danger.inbox-deletes')).toHaveText('deletes');
  await expect(first.locator('.inbox-change')).toHaveText(items[0].changes.slice(0, 3));
  await expect(first.locator('.inbox-change.destructive')).toHaveCount(3);
  await expect(first.locator('.inbox-more')).toHaveText(`+${items[0].changes.length - 3} more`);
  const font = await first.locator('.inbox-change').first().evaluate((el) => getComputedStyle(el).fontFamily);
  expect(font).toMatch(/mono/i);

  // The Scans item only moves: no badge, both lines, nothing more; a long root is shortened (the whole path in its title).
  const second = cards.nth(1);
  await expect(second).not.toHaveClass(/destructive/);
  await expect(second.locator('.inbox-deletes')).toHaveCount(0);
  await expect(second.locator('.inbox-change')).toHaveText(items[1].changes);
  await expect(second.locator('.inbox-change[data-op="move"]')).toHaveCount(1);
  await expect(second.locator('.inbox-more')).toHaveCount(0);
  await expect(second.locator('.inbox-root')).toHaveText('/home/…/2024/Paperwork');
  await expect(second.locator('.inbox-root')).toHaveAttribute('title', items[1].root);
  await expect(second.getByRole('button', { name: 'Approve…: organize Scans by type' })).toBeVisible();
  await expect(second.getByRole('button', { name: 'Discard: organize Scans by type' })).toBeVisible();
  await expect(second.getByRole('button', { name: 'Graph: organize Scans by type' })).toBeVisible();

  // First in the idle view: above the suggested workflows, which are above the recent list.
  const [inboxBox, suggestionsBox, listBox] = [await inbox.boundingBox(), await page.locator('.workflow-suggestions').boundingBox(), await page.locator('.history').boundingBox()];
  expect(inboxBox.y + inboxBox.height).toBeLessThanOrEqual(suggestionsBox.y);
  expect(suggestionsBox.y + suggestionsBox.height).toBeLessThanOrEqual(listBox.y);
  await expect(page.locator('.history-item')).toHaveCount(5);

  // The footer's count; it leads to the first item's "Approve…".
  const badge = page.locator('footer .open-inbox');
  await expect(badge).toBeVisible();
  await expect(badge.locator('.inbox-count')).toHaveText('2');
  await expect(badge).toHaveAttribute('aria-label', 'Inbox: 2 items waiting for your approval');
  await app.screenshot('bar-inbox');
  await badge.click();
  await expect(first.locator('button.inbox-approve')).toBeFocused();
  // From the keyboard too: ArrowDown from the agents reaches it first.
  await page.locator('.agent').first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(first.locator('button.inbox-approve')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(first.locator('button.inbox-discard')).toBeFocused();
});

test('"Approve…" runs the item with inbox_approve in the run view; its diff review commits; the inbox follows', async ({ app, page }) => {
  const items = inboxItems();
  await openBar(app, { inbox_list: items });
  await app.waitForListener('inbox://changed');
  await page.locator('.inbox-item').first().getByRole('button', { name: `Approve…: ${SEED_REQUEST}` }).click();
  const [args] = await app.waitForCalls('inbox_approve');
  expect(Object.keys(args).sort()).toEqual(['id', 'on_event']);
  expect(args.id).toBe('downloads-3fa2c1-r20');
  expect(args.on_event).toMatch(/^__CHANNEL__:\d+$/);
  expect(await app.calls('run_request')).toEqual([]);
  expect(await app.calls('undo_run')).toEqual([]);
  const run = page.locator('.run[data-kind="inbox"]');
  await expect(run.locator('.run-title')).toHaveText(SEED_REQUEST);
  await expect(run.locator('.run-title')).toHaveAttribute('title', `From the inbox: ${SEED_REQUEST}`);
  await expect(run.locator('.run-kind')).toHaveCount(1);
  await expect(page.locator('.inbox')).toHaveCount(0);
  // The count stays in view during the run; the badge does not leave the run.
  const badge = page.locator('footer .open-inbox');
  await expect(badge.locator('.inbox-count')).toHaveText('2');
  await expect(badge).toHaveAttribute('aria-disabled', 'true');

  // The recorded seed run streams on the channel as a request's run does: its plan, its approvals, its diff review.
  const s = seedScript();
  await app.send(s.phases[0]);
  await expect(run.locator('.plan .step')).toHaveCount(3);
  await app.send(s.questions[0]);
  await expect(page.locator('.card-review-step button.approve')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).length).toBe(1);
  await app.send(s.phases[1]);
  await app.send(s.questions[1]);
  await expect(page.locator('.card-review-step button.approve')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await app.calls('answer')).length).toBe(2);
  await app.send(s.phases[2]);
  await app.send(s.questions[2]);
  const diff = page.locator('.card-review-diff');
  await expect(diff.locator('.card-title')).toHaveText('Write 11 changes to disk?');
  await expect(diff.locator('button.commit')).toBeFocused();
  // Its badge is marked disabled during the run (a click keeps the run and its review in view).
  await badge.click({ force: true });
  await expect(diff.locator('button.commit')).toBeFocused();
  await page.keyboard.press('Control+Enter');
  await expect.poll(() => app.calls('answer')).toEqual([
    { id: 1, answer: { decision: 'approve' } },
    { id: 2, answer: { decision: 'approve' } },
    { id: 3, answer: { decision: 'commit' } },
  ]);

  // Committed: the engine drops the item and says so; the badge follows during the run view.
  await app.respond('inbox_list', items.slice(1));
  await app.send(s.phases[3]);
  await app.emit('inbox://changed', { count: 1, outcome: null });
  await expect(badge.locator('.inbox-count')).toHaveText('1');
  await app.finishRun(s.report);
  await expect(run.locator('.outcome-title')).toHaveText(/Committed · 11 changes written/);
  await expect(badge).toHaveAttribute('aria-disabled', 'false');

  // The badge leads back to the idle view, where one item is left.
  await badge.click();
  await expect(page.locator('.inbox-item')).toHaveCount(1);
  await expect(page.locator('.inbox-item button.inbox-approve')).toBeFocused();
  await expect(page.locator('.inbox-item')).toHaveAttribute('data-id', 'scans-9b01de-r21');
});

test('"Discard" calls inbox_discard and the list reloads; a refusal shows its code in the item', async ({ app, page }) => {
  const items = inboxItems();
  await openBar(app, { inbox_list: items, inbox_discard: { __error: { code: 'RUN_BUSY', message: 'a request is running' } } });
  const cards = page.locator('.inbox-item');
  await expect(cards).toHaveCount(2);

  // Refused: the item stays, with the reason; nothing was reloaded.
  await cards.nth(0).locator('button.inbox-discard').click();
  await expect(cards.nth(0).locator('.inbox-error .error-code')).toHaveText('RUN_BUSY');
  await expect(cards.nth(0).locator('.inbox-error')).toContainText('a request is running');
  await expect(cards.nth(0).locator('button.inbox-discard')).toBeFocused();
  expect(await app.calls('inbox_list')).toHaveLength(1);

  // Discarded: the engine's list no longer has it.
  await page.evaluate((rest) => {
    window.__mock.handlers.inbox_discard = (args) => {
      window.__mock.responses.inbox_list = rest.filter((i) => i.id !== args.id);
      rest = window.__mock.responses.inbox_list;
      return null;
    };
  }, items);
  await cards.nth(0).locator('button.inbox-discard').click();
  await expect.poll(() => app.calls('inbox_discard')).toEqual([{ id: 'downloads-3fa2c1-r20' }, { id: 'downloads-3fa2c1-r20' }]);
  await expect(cards).toHaveCount(1);
  expect(await app.calls('inbox_list')).toHaveLength(2);
  await expect(cards.nth(0)).toHaveAttribute('data-id', 'scans-9b01de-r21');
  await expect(cards.nth(0).locator('.inbox-error')).toHaveCount(0);
  await expect(page.locator('footer .open-inbox .inbox-count')).toHaveText('1');
  // The focus moves to the item that took its place.
  await expect(cards.nth(0).locator('button.inbox-approve')).toBeFocused();
  expect(await app.calls('inbox_approve')).toEqual([]);

  // The last one: the inbox and its count go away, the focus back to the input.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect.poll(() => app.calls('inbox_discard')).toHaveLength(3);
  await expect(page.locator('.inbox')).toBeHidden();
  await expect(page.locator('footer .open-inbox')).toBeHidden();
  await expect(page.locator('#request')).toBeFocused();
  await expect(page.locator('.history-item')).toHaveCount(3);
});

test('"Graph" calls inbox_preview with the item\'s id, then open_window("graph"); the item says what the graph shows, that nothing is left to do, or why not', async ({ app, page }) => {
  const items = inboxItems();
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await openBar(app, { inbox_list: items });
  const cards = page.locator('.inbox-item');
  await expect(cards).toHaveCount(2);
  const [first, second] = [cards.nth(0), cards.nth(1)];
  const graph = first.getByRole('button', { name: `Graph: ${SEED_REQUEST}` });
  await expect(graph).toHaveText('Graph');
  await expect(graph).toHaveAttribute('title', 'Show these changes in the graph window');
  await expect(graph).toHaveClass(/\bghost\b/);
  await expect(graph).toBeEnabled();
  await expect(first.locator('.inbox-note')).toHaveCount(0);

  // While inbox_preview runs the button is disabled and no window opens; then the graph window opens.
  await page.evaluate((previews) => {
    window.__mock.handlers.inbox_preview = ({ id }) =>
      new Promise((resolve) => {
        window.__finishPreview = () => resolve(previews[id]);
      });
  }, inboxPreviews);
  await graph.click();
  expect(await app.waitForCalls('inbox_preview')).toEqual([{ id: 'downloads-3fa2c1-r20' }]);
  await expect(graph).toBeDisabled();
  await expect(graph.locator('.spinner')).toHaveCount(1);
  expect(await app.calls('open_window')).toEqual([]);
  await page.evaluate(() => window.__finishPreview());
  await expect(first.locator('.inbox-note')).toHaveText('Shown in the graph: 1 deletion · 3 moves');
  await expect.poll(() => app.calls('open_window')).toEqual([{ label: 'graph' }]);
  const order = await page.evaluate(() => window.__mock.calls.map((c) => c.cmd).filter((c) => c === 'inbox_preview' || c === 'open_window'));
  expect(order).toEqual(['inbox_preview', 'open_window']);
  await expect(graph).toBeEnabled();
  await expect(graph).toBeFocused();
  // Nothing else happened to the item: no run, nothing discarded, the list as it was.
  expect(await app.calls('inbox_approve')).toEqual([]);
  expect(await app.calls('inbox_discard')).toEqual([]);
  await expect(second.locator('.inbox-note')).toHaveCount(0);

  // From the keyboard: Tab goes from an item's Discard to its Graph, then on to the next item's "Approve…".
  await first.locator('button.inbox-discard').focus();
  await page.keyboard.press('Tab');
  await expect(graph).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second.locator('button.inbox-approve')).toBeFocused();
  // Enter on the second item's Graph: its folder already looks like the item would make it, nothing to do any more.
  await page.evaluate((previews) => {
    window.__mock.handlers.inbox_preview = ({ id }) => previews[id];
  }, inboxPreviews);
  await page.keyboard.press('Tab');
  await expect(second.locator('button.inbox-discard')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second.locator('button.inbox-graph')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(second.locator('.inbox-note')).toHaveText('Nothing to do any more: the folder already looks like this');
  await expect(second.locator('.inbox-note')).toHaveClass(/nothing/);
  expect((await app.calls('inbox_preview')).at(-1)).toEqual({ id: 'scans-9b01de-r21' });
  await expect.poll(() => app.calls('open_window')).toEqual([{ label: 'graph' }, { label: 'graph' }]);
  await expect(second.locator('button.inbox-graph')).toBeFocused();
  await expect(first.locator('.inbox-note')).toHaveText('Shown in the graph: 1 deletion · 3 moves');
  await app.screenshot('bar-inbox-graph');

  // Refused: the reason in the item (no dialog), the earlier note gone, no window opened.
  await page.evaluate(() => {
    window.__mock.handlers.inbox_preview = () => {
      throw { code: 'RUN_BUSY', message: 'a request is running' };
    };
  });
  await graph.click();
  await expect(first.locator('.inbox-preview-error .error-code')).toHaveText('RUN_BUSY');
  await expect(first.locator('.inbox-preview-error .error-text')).toHaveText('a request is running');
  await expect(first.locator('.inbox-note')).toHaveCount(0);
  await expect(graph).toBeEnabled();
  expect(await app.calls('inbox_preview')).toHaveLength(3);
  expect(await app.calls('open_window')).toHaveLength(2);
  // The other item keeps its own note.
  await expect(second.locator('.inbox-note')).toHaveText('Nothing to do any more: the folder already looks like this');
  await expect(second.locator('.inbox-preview-error')).toHaveCount(0);
  expect(dialogs).toEqual([]);
});

test('inbox://changed reloads the inbox and its count, in the idle view and during a run', async ({ app, page }) => {
  const items = inboxItems();
  await openBar(app);
  await app.waitForListener('inbox://changed');
  await expect(page.locator('.history-item')).toHaveCount(3);
  await app.waitForCalls('inbox_list');
  await expect(page.locator('.inbox')).toBeHidden();
  await expect(page.locator('footer .open-inbox')).toBeHidden();

  // A watched folder was handled: its changes wait.
  await app.respond('inbox_list', items.slice(0, 1));
  await app.emit('inbox://changed', { count: 1, outcome: { outcome: 'parked', item: items[0] } });
  await expect(page.locator('.inbox-item')).toHaveCount(1);
  await expect(page.locator('footer .open-inbox .inbox-count')).toHaveText('1');
  expect(await app.calls('inbox_list')).toHaveLength(2);

  // During a run: the run view stays, the footer's count follows.
  await page.locator('#request').fill('Find files larger than 500 MB in Videos');
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  await app.respond('inbox_list', items);
  await app.emit('inbox://changed', { count: 2, outcome: { outcome: 'parked', item: items[1] } });
  await expect(page.locator('footer .open-inbox .inbox-count')).toHaveText('2');
  await expect(page.locator('.run')).toBeVisible();
  await expect(page.locator('.inbox')).toHaveCount(0);
  await app.failRun({ code: 'CANCELLED', message: 'cancelled' });
  await page.locator('#request').fill('F');
  await expect(page.locator('.inbox-item')).toHaveCount(2);

  // A trusted watch committed on its own: nothing more waits.
  await app.respond('inbox_list', []);
  await app.emit('inbox://changed', { count: 0, outcome: { outcome: 'committed', watch: 'scans-9b01de', run_id: 'r22', summary: 'Organized 1 file.' } });
  await expect(page.locator('.inbox')).toBeHidden();
  await expect(page.locator('footer .open-inbox')).toBeHidden();
});

test('a failing inbox_list leaves the recent list, its Undo and the suggestions as they are', async ({ app, page }) => {
  await openBar(app, {
    history: undoHistory,
    committed_runs: committedRuns,
    workflow_suggestions: workflowSuggestions,
    inbox_list: { __error: { code: 'IPC_ERROR', message: 'command inbox_list not found' } },
  });
  await expect(page.locator('.history-item')).toHaveCount(5);
  await app.waitForCalls('inbox_list');
  await expect(page.locator('.history-error')).toHaveCount(0);
  await expect(page.locator('.inbox')).toBeHidden();
  await expect(page.locator('.inbox-item')).toHaveCount(0);
  await expect(page.locator('footer .open-inbox')).toBeHidden();
  await expect(page.locator('.history-undo')).toHaveCount(2);
  await expect(page.locator('.workflow-suggestion')).toHaveCount(2);
  // A run still reloads both lists after it.
  await page.locator('.history-item').first().click();
  await page.keyboard.press('Enter');
  await app.waitForCalls('run_request');
  await app.failRun({ code: 'PLAN_INVALID', message: 'no plan' });
  await app.waitForCalls('inbox_list', 2);
  await app.waitForCalls('history', 2);
});
