// The test fixtures speak the engine's real contract: each is checked against the JSON Schema generated from the Rust types (src/generated/ipc.schema.json).
import { test, expect } from '@playwright/test';
import * as f from './support/fixtures.mjs';
import { viewBefore, viewDownloads, viewAfter, viewLarge } from './support/graph-views.mjs';
import { schema, validator, contractErrors, answerProblems } from './support/ipc-contract.mjs';

function check(part, value) {
  expect.soft(contractErrors(part, value), `${part}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
}

test('command replies in the fixtures match the commands', () => {
  check('commands/app_info', f.appInfo);
  check('commands/agents', f.agents);
  check('commands/history', f.history);
  check('commands/history', f.undoHistory);
  check('commands/committed_runs', f.committedRuns);
  check('commands/skills_list', f.skills);
  check('commands/settings_get', f.settings);
  check('commands/pending_recovery', f.recoveryReport);
  check('commands/finish_recovery', f.recoveryFinished);
  check('commands/finish_recovery', f.recoveryBlocked);
  check('commands/undo_run', f.undoScript().report);
  for (const view of [viewBefore(), viewDownloads(), viewAfter(), viewLarge()]) check('commands/graph_view', view);
});

test('the saved-workflow fixtures match their commands', () => {
  // The schema gains these commands when the engine's contract test regenerates src/generated/.
  test.skip(!schema.commands.workflow_save || !schema.commands.workflow_suggestions, 'src/generated/ipc.schema.json predates workflow_save / workflow_suggestions');
  check('commands/workflow_save', f.workflowSaved);
  check('commands/workflow_suggestions', f.workflowSuggestions);
});

test('the model-loading fixtures match settings_set, model_load_cancel and models://progress', () => {
  // The schema gains model_load_cancel when the engine's contract test regenerates src/generated/.
  test.skip(!schema.commands.model_load_cancel, 'src/generated/ipc.schema.json predates model_load_cancel');
  check('commands/settings_set', f.settingsWithModels);
  check('commands/model_load_cancel', f.settings);
  check('commands/model_load_cancel', null);
  for (const p of [...f.modelsLoading, ...f.modelsCancelled]) check('event', p);
  const { thinker_backend, ...partial } = f.settings;
  expect(validator('commands/model_load_cancel')(partial)).toBe(false); // a Settings object is whole
});

test('the watched-folder and inbox fixtures match their commands and event', () => {
  // The schema gains these commands when the engine's contract test regenerates src/generated/.
  const names = ['watches_list', 'watch_add', 'watch_remove', 'inbox_list', 'inbox_approve'];
  test.skip(names.some((name) => !schema.commands[name]), 'src/generated/ipc.schema.json predates the watched folders and the inbox');
  check('commands/watches_list', f.watches);
  check('commands/watch_add', f.watchAdded);
  check('commands/watch_remove', true);
  check('commands/inbox_list', f.inboxItems());
  check('commands/inbox_approve', f.seedScript().report);
  check('event', { count: 2, outcome: null });
  check('event', { count: 1, outcome: { outcome: 'parked', item: f.inboxItems()[0] } });
});

test('the inbox preview and skills_describe fixtures match their commands', () => {
  // The schema gains these commands when the engine's contract test regenerates src/generated/.
  test.skip(!schema.commands.inbox_preview || !schema.commands.skills_describe, 'src/generated/ipc.schema.json predates inbox_preview / skills_describe');
  for (const preview of Object.values(f.inboxPreviews)) check('commands/inbox_preview', preview);
  check('commands/skills_describe', f.skillsDescribed);
  check('commands/skills_describe', f.skillsDescribedFailed);
  expect(validator('commands/inbox_preview')({ id: 'x', root: '/', changes: '4', counts: '' })).toBe(false); // a count, not text
});

test('the recorded seed run and its scripts are valid events, channel messages and reports', () => {
  const { events, report } = f.seedRun();
  for (const e of events) check('$defs/Event', e);
  check('commands/run_request', report);
  for (const dryRun of [false, true]) {
    const s = f.seedScript({ dryRun });
    for (const m of [...s.phases.flat(), ...s.questions]) check('channel', m);
    check('commands/run_request', s.report);
  }
  const u = f.undoScript();
  for (const m of [...u.before, u.question, ...u.after]) check('channel', m);
});

test('the similar-photos approval fixtures are valid channel messages', () => {
  for (const action of ['remove', 'hardlink']) {
    check('channel', { kind: 'question', id: 1, question: { type: 'review_step', review: f.similarReviewStep({ action }) } });
  }
});

test('the schema is strict where the UI relies on it', () => {
  // A change kind the engine does not know, or a missing field, is refused.
  expect(validator('$defs/ChangeOp')({ op: 'teleport', path: 'a' })).toBe(false);
  expect(validator('$defs/ChangeOp')({ op: 'move', from: 'a' })).toBe(false);
  // A tagged union accepts objects only (ajv's discriminator alone would let a string or null through).
  expect(validator('$defs/ChangeOp')('delete')).toBe(false);
  expect(validator('$defs/ChangeOp')(null)).toBe(false);
  expect(validator('commands/app_info')({ ...f.appInfo, planner: 3 })).toBe(false);
});

test('each question type has the schema of its answer, and it tells right answers from wrong ones', () => {
  // What the window may send with answer(id, payload) for a question of each type; the two reviews are
  // engine::StepAnswer and engine::DiffAnswer.
  const examples = {
    clarify_request: { valid: ['remove duplicates in Downloads', null], invalid: [3, { text: 'x' }] },
    choose_skill: { valid: [1, 0, null], invalid: ['x', -1, 1.5] },
    clarify_param: { valid: [500000000, 'Downloads', null, { any: 'thing' }], invalid: [] },
    review_step: {
      valid: [{ decision: 'approve' }, { decision: 'override', params: { keep: 'oldest' } }, { decision: 'roll_back' }],
      invalid: [{ decision: 'yes' }, { decision: 'override' }, { decision: 'approve', params: {} }, 'approve', null],
    },
    review_diff: {
      valid: [{ decision: 'commit' }, { decision: 'discard' }, { decision: 'roll_back_to', snapshot: 'snap-2' }],
      invalid: [{ decision: 'roll_back_to' }, { decision: 'approve' }, { decision: 'commit', snapshot: 'snap-2' }, true],
    },
  };
  // Every question type the contract can ask has an answer schema, and no other.
  const questionTypes = schema.$defs.Question.oneOf.map((v) => v.properties.type.const);
  expect(Object.keys(schema.answers ?? {}).sort()).toEqual([...questionTypes].sort());
  expect(Object.keys(examples).sort()).toEqual([...questionTypes].sort());
  for (const [type, { valid, invalid }] of Object.entries(examples)) {
    const validate = validator(`answers/${type}`);
    for (const answer of valid) expect.soft(contractErrors(`answers/${type}`, answer), `${type}: ${JSON.stringify(answer)} fits`).toEqual([]);
    for (const answer of invalid) expect.soft(validate(answer), `${type}: ${JSON.stringify(answer)} is refused`).toBe(false);
  }
});

test('the harness check of sent answers names the question type and what is wrong', () => {
  // The Tauri mock records each answer with the type of the question it answers; the harness fails a test on any problem.
  expect(answerProblems([
    { id: 1, answer: { decision: 'approve' }, question: 'review_step' },
    { id: 2, answer: { decision: 'roll_back_to', snapshot: 'snap-2' }, question: 'review_diff' },
    { id: 3, answer: null, question: 'choose_skill' },
  ])).toEqual([]);
  const problems = answerProblems([
    { id: 1, answer: { decision: 'yes' }, question: 'review_step' },
    { id: 2, answer: { decision: 'roll_back_to' }, question: 'review_diff' },
    { id: 7, answer: 1, question: null },
  ]);
  expect(problems).toHaveLength(3);
  expect(problems[0]).toMatch(/^answer\(1, \{"decision":"yes"\}\) does not fit answers\/review_step: .*decision/);
  expect(problems[1]).toMatch(/^answer\(2, .*\) does not fit answers\/review_diff: .*snapshot/);
  expect(problems[2]).toMatch(/no question 7 was asked/);
});
