// The test fixtures speak the engine's real contract: each is checked against the JSON Schema generated from the Rust types (src/generated/ipc.schema.json).
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import * as f from './support/fixtures.mjs';
import { viewBefore, viewDownloads, viewAfter, viewLarge } from './support/graph-views.mjs';

const schema = JSON.parse(readFileSync(new URL('../src/generated/ipc.schema.json', import.meta.url), 'utf8'));
// schemars' integer formats (uint64, …) are sizes, not a format to check; the rest is checked strictly.
// Tagged unions (`oneOf` whose variants each fix one property to a constant) are checked by their
// tag (ajv's discriminator), so an error names the fields of the variant the value claims to be.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, discriminator: true });
ajv.addSchema({ ...tagUnions(schema), $id: 'ipc' });

/** A copy of `s` with `discriminator` on every tagged `oneOf`. */
function tagUnions(s) {
  if (Array.isArray(s)) return s.map(tagUnions);
  if (!s || typeof s !== 'object') return s;
  const out = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, tagUnions(v)]));
  const variants = out.oneOf;
  if (Array.isArray(variants) && variants.length > 1) {
    const tags = Object.keys(variants[0].properties ?? {}).filter((k) => variants.every((v) => v.properties?.[k]?.const !== undefined && v.required?.includes(k)));
    if (tags.length) out.discriminator = { propertyName: tags[0] };
  }
  return out;
}

/** The validator for a part of the contract: `commands/app_info`, `channel`, `event`, `$defs/Event`. */
function validator(part) {
  return ajv.compile({ $ref: `ipc#/${part}` });
}

function check(part, value) {
  const validate = validator(part);
  const ok = validate(value);
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  expect.soft(ok ? [] : errors, `${part}: ${JSON.stringify(value).slice(0, 200)}`).toEqual([]);
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

test('the schema is strict where the UI relies on it', () => {
  // A change kind the engine does not know, or a missing field, is refused.
  expect(validator('$defs/ChangeOp')({ op: 'teleport', path: 'a' })).toBe(false);
  expect(validator('$defs/ChangeOp')({ op: 'move', from: 'a' })).toBe(false);
  expect(validator('commands/app_info')({ ...f.appInfo, planner: 3 })).toBe(false);
});
