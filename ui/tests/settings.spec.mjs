// Settings window: load, pickers, backend-dependent model fields, rule planner first, drop folder, save, CONFIG_INVALID problem list, model progress, cancelling a model load, watched folders.
import { test, expect } from './support/harness.mjs';
import { settings, settingsWithModels, modelsLoading, modelsCancelled, appInfo, watches, watchAdded, SEED_REQUEST } from './support/fixtures.mjs';

async function openSettings(app, extra = {}) {
  await app.open('settings', { responses: { settings_get: settings, watches_list: [], ...extra } });
  await expect(app.page.locator('#working-root')).toHaveValue('/home/u');
}

test('loads the settings; model fields follow the chosen backends; pickers fill the fields', async ({ app, page }) => {
  await openSettings(app, { pick_folder: '/home/u/Work', pick_file: '/models/qwen2.5-1.5b-instruct-q4_k_m.gguf' });
  await expect(page.locator('input[name="planner"][value="rule"]')).toBeChecked();
  await expect(page.locator('input[name="hitl"][value="key"]')).toBeChecked();
  await expect(page.locator('label.hitl-option.checked input')).toHaveValue('key'); // highlighted without :has()
  await expect(page.locator('#shortcut')).toHaveValue('Alt+Space');
  await expect(page.locator('.config-file')).toHaveText(settings.config_file);
  await expect(page.locator('#planner-model')).toBeDisabled();
  await expect(page.locator('#embedder-model')).toBeDisabled();

  await page.locator('button[aria-label="Choose working folder"]').click();
  await expect(page.locator('#working-root')).toHaveValue('/home/u/Work');

  await page.locator('label.seg-option', { hasText: 'Local LLM' }).click();
  await expect(page.locator('#planner-model')).toBeEnabled();
  await page.locator('button[aria-label="Choose planner GGUF file"]').click();
  await expect(page.locator('#planner-model')).toHaveValue('/models/qwen2.5-1.5b-instruct-q4_k_m.gguf');
  expect(await app.calls('pick_file')).toEqual([{ filters: [{ name: 'GGUF model', extensions: ['gguf'] }] }]);
  // A safetensors model is a folder: the planner has a folder picker too.
  await page.locator('button[aria-label="Choose planner model folder"]').click();
  await expect(page.locator('#planner-model')).toHaveValue('/home/u/Work');
  await page.locator('button[aria-label="Choose planner GGUF file"]').click();

  await page.locator('label.seg-option', { hasText: 'BERT' }).click();
  await expect(page.locator('#embedder-model')).toBeEnabled();
  await page.locator('button[aria-label="Choose embedder model folder"]').click();
  await expect(page.locator('#embedder-model')).toHaveValue('/home/u/Work');
  await page.locator('#working-root').focus();
  await app.screenshot('settings-initial');
});

test('Save sends every setting; CONFIG_INVALID lists every problem', async ({ app, page }) => {
  await openSettings(app, {
    settings_set: {
      __error: {
        code: 'CONFIG_INVALID',
        message: 'invalid configuration:\n  - `thinker_model_path` (from file): /nope.gguf does not exist\n  - `hitl_mode` (from file): must be all, key or bypass',
      },
    },
  });
  await page.locator('label.seg-option', { hasText: 'Local LLM' }).click();
  await page.locator('#planner-model').fill('/nope.gguf');
  await page.locator('label.hitl-option', { hasText: 'Every step' }).click();
  await expect(page.locator('label.hitl-option.checked')).toHaveCount(1);
  await expect(page.locator('label.hitl-option.checked input')).toHaveValue('all');
  await page.locator('#shortcut').fill('Hyper+Q');
  await page.keyboard.press('Control+s');
  const [sent] = await app.waitForCalls('settings_set');
  expect(sent).toEqual({
    settings: {
      working_root: '/home/u',
      thinker_backend: 'mistralrs',
      thinker_model_path: '/nope.gguf',
      thinker_rules_first: true,
      embedding_backend: 'words',
      embedding_model_path: null,
      hitl_mode: 'all',
      shortcut: 'Hyper+Q',
      drop_folder: null,
      config_file: settings.config_file,
    },
  });
  const errors = page.locator('.errors');
  await expect(errors.locator('.errors-head')).toHaveText('2 problems — nothing was saved');
  await expect(errors.locator('li')).toHaveText(['`thinker_model_path` (from file): /nope.gguf does not exist', '`hitl_mode` (from file): must be all, key or bypass']);
  await expect(page.locator('.save-status')).toHaveText('Not saved');
  await expect(page.locator('.save-status')).toBeVisible();

  // Model progress lines, then a successful save.
  await app.waitForListener('models://progress');
  await app.emit('models://progress', { component: 'planner', state: 'loading', message: 'loading qwen2.5-1.5b-instruct-q4_k_m.gguf (1.1 GB)' });
  await app.emit('models://progress', { component: 'planner', state: 'failed', message: 'unsupported GGUF version 4' });
  await app.emit('models://progress', { component: 'planner', state: 'fallback', message: 'using the rule-based planner' });
  await app.emit('models://progress', { component: 'embedder', state: 'ready', message: 'lexical embedder ready' });
  await expect(page.locator('.progress-line')).toHaveCount(4);
  await expect(page.locator('.progress-line.failed .p-message')).toHaveText('unsupported GGUF version 4');
  await expect(page.locator('.progress-line[data-state="fallback"]')).toContainText('planner');
  await expect(page.locator('.model-chip')).toHaveText(['planner fallback', 'embedder ready']);
  await errors.scrollIntoViewIfNeeded();
  await app.screenshot('settings-errors');
  await page.locator('.progress-list').scrollIntoViewIfNeeded();
  await app.screenshot('settings-progress');

  await app.respond('settings_set', { ...settings, thinker_backend: 'mistralrs', thinker_model_path: '/models/ok.gguf' });
  await page.locator('#planner-model').fill('/models/ok.gguf');
  await page.locator('button.save').click();
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  await expect(errors).toBeHidden();
});

test('the working folder in use is shown when it differs from the saved one; re-read when the root changes', async ({ app, page }) => {
  await app.open('settings', { responses: { settings_get: { ...settings, working_root: null }, app_info: { ...appInfo, root: '/home/u' } } });
  const field = page.locator('#working-root');
  const inUse = page.locator('.in-use');
  // Nothing saved: the field is empty, shows the folder in use as its placeholder, and the line names it.
  await expect(inUse).toHaveText('In use now: /home/u');
  await expect(field).toHaveValue('');
  await expect(field).toHaveAttribute('placeholder', '/home/u');
  await app.screenshot('settings-root-in-use');

  // set_root from the bar (or the environment) changes the folder in use: only a `root` change re-reads app_info.
  await app.waitForListener('graph://changed');
  const reads = (await app.calls('app_info')).length;
  await app.respond('app_info', { ...appInfo, root: '/data/photos' });
  await app.emit('graph://changed', { reason: 'delta' });
  await app.emit('graph://changed', { reason: 'root' });
  await expect(inUse).toHaveText('In use now: /data/photos');
  await expect(field).toHaveAttribute('placeholder', '/data/photos');
  expect((await app.calls('app_info')).length).toBe(reads + 1);

  // A saved folder that differs from the one in use: the line stays under the filled field.
  await app.respond('settings_set', { ...settings, working_root: '/home/u' });
  await field.fill('/home/u');
  await page.locator('button.save').click();
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  await expect(inUse).toHaveText('In use now: /data/photos');
  await expect(inUse).toBeVisible();

  // The engine moves to the saved folder: nothing more to say (a trailing slash is the same folder).
  await app.respond('app_info', { ...appInfo, root: '/home/u/' });
  await app.emit('graph://changed', { reason: 'root' });
  await expect(inUse).toBeHidden();
});

test('no line when the saved folder is the one in use', async ({ app, page }) => {
  await openSettings(app, { app_info: appInfo });
  await app.waitForCalls('app_info');
  await expect(page.locator('#working-root')).toHaveAttribute('placeholder', '/home/u');
  await expect(page.locator('.in-use')).toBeHidden();
});

// ---------------------------------------------------------------- cancelling a model load

test('Cancel loading: shown while a model loads; model_load_cancel refills the model fields from its reply, the cancelled notices say so, Save keeps the models in use', async ({ app, page }) => {
  await openSettings(app, { settings_set: settingsWithModels });
  // The engine answers model_load_cancel as the app does: a `cancelled` notice for each loading component, then the settings in use.
  await page.evaluate(([restored, cancelled]) => {
    window.__mock.handlers.model_load_cancel = () => {
      for (const p of cancelled) window.__mock.emit('models://progress', p);
      return restored;
    };
  }, [settings, modelsCancelled]);
  const cancel = page.getByRole('button', { name: 'Cancel loading' });
  await expect(cancel).toBeHidden();

  // Choose a big planner model and a BERT embedder, and save: they load in the background.
  await page.locator('label.seg-option', { hasText: 'Local LLM' }).click();
  await page.locator('#planner-model').fill(settingsWithModels.thinker_model_path);
  await page.locator('label.rules-first-option').click();
  await page.locator('label.seg-option', { hasText: 'BERT' }).click();
  await page.locator('#embedder-model').fill(settingsWithModels.embedding_model_path);
  await page.locator('button.save').click();
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  expect((await app.lastCall('settings_set')).settings).toEqual(settingsWithModels);
  await expect(cancel).toBeHidden();

  await app.waitForListener('models://progress');
  await app.emit('models://progress', modelsLoading[0]);
  await expect(cancel).toBeVisible();
  await expect(page.locator('.load-cancel-note')).toHaveText('Loading the planner model; the ones in use stay until then.');
  await app.emit('models://progress', modelsLoading[1]);
  await expect(page.locator('.load-cancel-note')).toHaveText('Loading the planner and embedder models; the ones in use stay until then.');
  await expect(cancel).toHaveCount(1); // one button for both
  await expect(page.locator('.model-chip')).toHaveText(['planner loading', 'embedder loading']);
  // An edit not saved yet is not a model setting: cancelling leaves it.
  await page.locator('#shortcut').fill('Hyper+Q');
  await page.locator('.progress-list').scrollIntoViewIfNeeded();
  await app.screenshot('settings-model-loading');

  await cancel.click();
  await expect.poll(() => app.calls('model_load_cancel')).toEqual([{}]);
  // The cancelled notices: their messages in the log, the chips, no button.
  await expect(cancel).toBeHidden();
  await expect(page.locator('.progress-line.cancelled .p-message')).toHaveText(modelsCancelled.map((p) => p.message));
  await expect(page.locator('.progress-line[data-state="cancelled"] .p-component')).toHaveText(['planner', 'embedder']);
  await expect(page.locator('.progress-line.loading .spinner')).toHaveCount(0);
  await expect(page.locator('.model-chip')).toHaveText(['planner cancelled', 'embedder cancelled']);
  await expect(page.locator('.save-status')).toHaveText('Loading cancelled');
  // The model fields show the models in use (the reply), the rest of the form what was typed.
  await expect(page.locator('input[name="planner"][value="rule"]')).toBeChecked();
  await expect(page.locator('#planner-model')).toHaveValue('');
  await expect(page.locator('#planner-model')).toBeDisabled();
  await expect(page.getByRole('checkbox', { name: 'Rule planner first' })).toBeChecked();
  await expect(page.locator('input[name="embedder"][value="words"]')).toBeChecked();
  await expect(page.locator('#embedder-model')).toHaveValue('');
  await expect(page.locator('#embedder-model')).toBeDisabled();
  await expect(page.locator('#shortcut')).toHaveValue('Hyper+Q');
  await app.screenshot('settings-model-load-cancelled');

  // A later Save does not ask for the cancelled models again.
  await app.respond('settings_set', { ...settings, shortcut: 'Hyper+Q' });
  await page.locator('button.save').click();
  await app.waitForCalls('settings_set', 2);
  expect((await app.lastCall('settings_set')).settings).toEqual({ ...settings, shortcut: 'Hyper+Q' });
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  expect(await app.calls('model_load_cancel')).toHaveLength(1);
});

test('Cancel loading is shown only while a component loads: ready, failed, fallback and cancelled hide it; a null reply just hides it', async ({ app, page }) => {
  await openSettings(app, { settings_get: settingsWithModels, model_load_cancel: null });
  const cancel = page.getByRole('button', { name: 'Cancel loading' });
  await app.waitForListener('models://progress');
  await expect(cancel).toBeHidden();

  await app.emit('models://progress', modelsLoading[0]);
  await expect(cancel).toBeVisible();
  await app.emit('models://progress', { component: 'planner', state: 'ready', message: 'qwen2.5-14b-instruct-q4_k_m.gguf ready' });
  await expect(cancel).toBeHidden();

  await app.emit('models://progress', modelsLoading[1]);
  await expect(cancel).toBeVisible();
  await app.emit('models://progress', { component: 'embedder', state: 'failed', message: 'no config.json in /models/bge-large-en-v1.5' });
  await expect(cancel).toBeHidden();
  await app.emit('models://progress', { component: 'embedder', state: 'fallback', message: 'using the built-in embedder' });
  await expect(cancel).toBeHidden();

  // Both load; one finishing leaves the button for the other.
  await app.emit('models://progress', modelsLoading[0]);
  await app.emit('models://progress', modelsLoading[1]);
  await app.emit('models://progress', { component: 'embedder', state: 'ready', message: 'bge-large-en-v1.5 ready' });
  await expect(cancel).toBeVisible();
  await expect(page.locator('.load-cancel-note')).toHaveText('Loading the planner model; the ones in use stay until then.');
  // Cancelled elsewhere (another Settings window): its notice is shown and the button goes.
  await app.emit('models://progress', modelsCancelled[0]);
  await expect(cancel).toBeHidden();
  await expect(page.locator('.progress-line.cancelled .p-message')).toHaveText([modelsCancelled[0].message]);
  expect(await app.calls('model_load_cancel')).toEqual([]);

  // The load finished before the click reached the engine: null, the button goes, nothing else changes.
  await app.emit('models://progress', modelsLoading[0]);
  await expect(cancel).toBeVisible();
  await page.locator('#planner-model').fill('/models/other.gguf');
  await cancel.click();
  await expect.poll(() => app.calls('model_load_cancel')).toEqual([{}]);
  await expect(cancel).toBeHidden();
  await expect(page.locator('#planner-model')).toHaveValue('/models/other.gguf');
  await expect(page.locator('input[name="planner"][value="mistralrs"]')).toBeChecked();
  await expect(page.locator('#embedder-model')).toHaveValue(settingsWithModels.embedding_model_path);
  await expect(page.locator('.save-status')).toHaveText('');
  // Its own notice follows as usual.
  await app.emit('models://progress', { component: 'planner', state: 'ready', message: 'qwen2.5-14b-instruct-q4_k_m.gguf ready' });
  await expect(page.locator('.model-chip')).toHaveText(['planner ready', 'embedder ready']);
  await expect(cancel).toBeHidden();

  // The engine could not save the settings back: said in the footer; the button stays to try again.
  await app.emit('models://progress', modelsLoading[1]);
  await app.respond('model_load_cancel', { __error: { code: 'WRITE_FAILED', message: 'cannot write /home/u/.config/scope-weaver/config.toml: read-only file system' } });
  await cancel.click();
  await expect(page.locator('.save-status')).toHaveText('Could not cancel loading — WRITE_FAILED: cannot write /home/u/.config/scope-weaver/config.toml: read-only file system');
  await expect(cancel).toBeVisible();
  await expect(cancel).toBeEnabled();
});

// ---------------------------------------------------------------- rule planner first, drop folder

test('"Rule planner first" is ticked and off with the rule planner, on with a model; unticking sends thinker_rules_first: false', async ({ app, page }) => {
  await openSettings(app, { settings_set: { ...settings, thinker_backend: 'mistralrs', thinker_model_path: '/models/q.gguf', thinker_rules_first: false } });
  const rulesFirst = page.getByRole('checkbox', { name: 'Rule planner first' });
  const option = page.locator('label.rules-first-option');
  // The rule planner plans everything itself: the choice is kept but cannot be changed, and looks it.
  await expect(rulesFirst).toBeChecked();
  await expect(rulesFirst).toBeDisabled();
  await expect(option).toHaveClass(/disabled/);
  await expect(option).toHaveCSS('opacity', '0.4');
  await option.scrollIntoViewIfNeeded();
  await app.screenshot('settings-rules-first-off');
  await expect(rulesFirst).toHaveAccessibleDescription(/the model chooses between those readings\.$/);

  await page.locator('label.seg-option', { hasText: 'Local LLM' }).click();
  await expect(rulesFirst).toBeEnabled();
  await expect(option).not.toHaveClass(/disabled/);
  await expect(option).toHaveCSS('opacity', '1');
  await page.locator('#planner-model').fill('/models/q.gguf');
  await option.click(); // the label (its text) toggles it too
  await expect(rulesFirst).not.toBeChecked();
  await option.scrollIntoViewIfNeeded();
  await app.screenshot('settings-rules-first');
  await page.locator('button.save').click();
  const [sent] = await app.waitForCalls('settings_set');
  expect(sent.settings).toMatchObject({ thinker_backend: 'mistralrs', thinker_model_path: '/models/q.gguf', thinker_rules_first: false, drop_folder: null });
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  await expect(rulesFirst).not.toBeChecked();
  await expect(rulesFirst).toBeEnabled();

  // Back to the rule planner: off again, its tick kept and still sent.
  await page.locator('label.seg-option', { hasText: 'Rule-based' }).click();
  await expect(rulesFirst).toBeDisabled();
  await expect(rulesFirst).not.toBeChecked();
  await app.respond('settings_set', settings);
  await page.locator('button.save').click();
  await app.waitForCalls('settings_set', 2);
  expect((await app.lastCall('settings_set')).settings).toMatchObject({ thinker_backend: 'rule', thinker_rules_first: false });
  // The reply is what the window shows.
  await expect(rulesFirst).toBeChecked();
});

test('"Rule planner first" loads unticked from settings_get with a model chosen', async ({ app, page }) => {
  await openSettings(app, { settings_get: { ...settings, thinker_backend: 'mistralrs', thinker_model_path: '/models/q.gguf', thinker_rules_first: false } });
  const rulesFirst = page.getByRole('checkbox', { name: 'Rule planner first' });
  await expect(rulesFirst).not.toBeChecked();
  await expect(rulesFirst).toBeEnabled();
});

test('the drop folder: loaded, chosen or typed, saved as typed (empty: null); CONFIG_INVALID naming drop_folder is listed and marks the field', async ({ app, page }) => {
  await openSettings(app, { settings_get: { ...settings, drop_folder: '/home/u/Drop' }, pick_folder: '/home/u/Tasks' });
  const group = page.getByRole('region', { name: 'Task files' });
  const field = group.getByRole('textbox');
  await expect(field).toHaveValue('/home/u/Drop');
  await expect(field).toHaveAccessibleDescription(/^A task file is a JSON file like /);
  await expect(group.locator('.drop-note')).toContainText('A task file is a JSON file like {"request": "tidy up", "root": "/abs/folder"}, one tool call or a plan');
  await group.getByRole('button', { name: 'Choose drop folder' }).click();
  await expect(field).toHaveValue('/home/u/Tasks');

  // A relative folder: the engine refuses it; the problem is listed like any other and the field is marked.
  await app.respond('settings_set', {
    __error: { code: 'CONFIG_INVALID', message: 'invalid configuration:\n  - `drop_folder` (from file): must be an absolute path, not Tasks' },
  });
  await field.fill('Tasks');
  await field.press('Enter'); // Enter in a settings field saves the settings
  const [refused] = await app.waitForCalls('settings_set');
  expect(refused.settings).toEqual({ ...settings, drop_folder: 'Tasks' });
  const errors = page.locator('.errors');
  await expect(errors.locator('.errors-head')).toHaveText('1 problem — nothing was saved');
  await expect(errors.locator('li')).toHaveText(['`drop_folder` (from file): must be an absolute path, not Tasks']);
  await expect(page.locator('.save-status')).toHaveText('Not saved');
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveClass(/invalid/);
  await expect(page.locator('#working-root')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveValue('Tasks');
  await field.blur(); // the focus ring would hide the red border
  await group.scrollIntoViewIfNeeded();
  await app.screenshot('settings-drop-folder-error');

  // An absolute folder goes out as typed (trimmed); the reply clears the error.
  await app.respond('settings_set', { ...settings, drop_folder: '/home/u/Tasks' });
  await field.fill('  /home/u/Tasks ');
  await page.locator('button.save').click();
  await app.waitForCalls('settings_set', 2);
  expect((await app.lastCall('settings_set')).settings).toEqual({ ...settings, drop_folder: '/home/u/Tasks' });
  await expect(page.locator('.save-status')).toHaveText('Saved · models load in the background');
  await expect(errors).toBeHidden();
  await expect(field).not.toHaveAttribute('aria-invalid', 'true');
  await expect(field).not.toHaveClass(/invalid/);
  await expect(field).toHaveValue('/home/u/Tasks');

  // Emptied: no drop folder.
  await app.respond('settings_set', settings);
  await field.fill('');
  await page.locator('button.save').click();
  await app.waitForCalls('settings_set', 3);
  expect((await app.lastCall('settings_set')).settings.drop_folder).toBeNull();
  await expect(field).toHaveValue('');
  await expect(field).toHaveAttribute('placeholder', 'No drop folder');
});

// ---------------------------------------------------------------- watched folders

test('watched folders: the list from watches_list, adding one (its exact args), removing one', async ({ app, page }) => {
  // "handled 12 minutes ago" counted from now: the fixture's time is when its file was loaded,
  // minutes before this test runs late in a long suite (it read "handled 14 min ago").
  const fresh = watches.map((w) => (w.last_handled_ms === null ? w : { ...w, last_handled_ms: Date.now() - 12 * 60000 }));
  await openSettings(app, { watches_list: fresh });
  // The engine's list follows watch_add and watch_remove.
  await page.evaluate(([added]) => {
    window.__mock.handlers.watch_add = (args) => {
      const watch = { ...added, folder: args.folder, request: args.request, settle_secs: args.settle_secs, trusted: args.trusted };
      window.__mock.responses.watches_list = [...window.__mock.responses.watches_list, watch];
      return watch;
    };
    window.__mock.handlers.watch_remove = (args) => {
      const before = window.__mock.responses.watches_list;
      window.__mock.responses.watches_list = before.filter((w) => w.id !== args.id);
      return before.length !== window.__mock.responses.watches_list.length;
    };
  }, [watchAdded]);
  const group = page.getByRole('region', { name: 'Watched folders' });
  const rows = group.locator('.watch-row');
  await expect(rows).toHaveCount(2);
  expect(await app.calls('watches_list')).toEqual([{}]);
  await expect(rows.nth(0).locator('.watch-folder')).toHaveText('Downloads');
  await expect(rows.nth(0).locator('.watch-folder')).toHaveAttribute('title', '/home/u/Downloads');
  await expect(rows.nth(0).locator('.watch-request')).toHaveText(SEED_REQUEST);
  await expect(rows.nth(0).locator('.watch-settle')).toHaveText('after 5 s of quiet');
  await expect(rows.nth(0).locator('.badge.watch-trusted-badge')).toHaveText('trusted');
  await expect(rows.nth(0).locator('.watch-handled')).toHaveText(/^handled 1[23] min ago$/);
  await expect(rows.nth(1).locator('.watch-folder')).toHaveText('Scans');
  await expect(rows.nth(1).locator('.watch-settle')).toHaveText('after 30 s of quiet');
  await expect(rows.nth(1).locator('.watch-trusted-badge')).toHaveCount(0);
  await expect(rows.nth(1).locator('.watch-handled')).toHaveCount(0);
  await expect(group.locator('.watch-note')).toHaveText('Changes that delete files always wait in the inbox, trusted or not.');
  await expect(group.locator('.watch-note')).toHaveCSS('color', 'rgb(111, 118, 138)');

  // The form: settle time 5 by default, not trusted; Enter in a field adds the watch and does not save the settings.
  const settle = group.getByRole('spinbutton', { name: 'Settle time in seconds' });
  const trusted = group.getByRole('checkbox', { name: 'Trusted: commit changes that delete nothing without asking' });
  await expect(settle).toHaveValue('5');
  await expect(trusted).not.toBeChecked();
  await group.getByRole('textbox', { name: 'Folder', exact: true }).fill('Inbox');
  await group.getByRole('textbox', { name: 'Request', exact: true }).fill('tidy Inbox');
  await settle.fill('10');
  await trusted.check();
  await group.getByRole('textbox', { name: 'Request', exact: true }).press('Enter');
  await expect.poll(() => app.calls('watch_add')).toEqual([{ folder: 'Inbox', request: 'tidy Inbox', settle_secs: 10, trusted: true }]);
  expect(await app.calls('settings_set')).toEqual([]);
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(2).locator('.watch-folder')).toHaveText('Inbox');
  await expect(rows.nth(2).locator('.watch-settle')).toHaveText('after 10 s of quiet');
  await expect(group.locator('.watch-status')).toHaveText('Watching Inbox');
  // Ready for another one.
  await expect(group.getByRole('textbox', { name: 'Folder', exact: true })).toHaveValue('');
  await expect(group.getByRole('textbox', { name: 'Folder', exact: true })).toBeFocused();
  await expect(group.getByRole('textbox', { name: 'Request', exact: true })).toHaveValue('');
  await expect(settle).toHaveValue('5');
  await expect(trusted).not.toBeChecked();
  await group.scrollIntoViewIfNeeded();
  await app.screenshot('settings-watches');

  // The button adds too, with the defaults.
  await group.getByRole('textbox', { name: 'Folder', exact: true }).fill('.');
  await group.getByRole('textbox', { name: 'Request', exact: true }).fill('remove duplicates');
  await group.getByRole('button', { name: 'Add watch' }).click();
  await expect.poll(async () => (await app.calls('watch_add')).at(-1)).toEqual({ folder: '.', request: 'remove duplicates', settle_secs: 5, trusted: false });
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(3).locator('.watch-folder')).toHaveText('. (the working folder)');

  // Remove: watch_remove with the watch's id; the focus moves to the next row.
  await group.getByRole('button', { name: 'Remove watch: Scans' }).click();
  await expect.poll(() => app.calls('watch_remove')).toEqual([{ id: 'scans-9b01de' }]);
  await expect(rows).toHaveCount(3);
  await expect(group.locator('.watch-folder')).toHaveText(['Downloads', 'Inbox', '. (the working folder)']);
  await expect(rows.nth(1).locator('.watch-remove')).toBeFocused();
  expect(await app.calls('settings_set')).toEqual([]);

  // A watched folder was handled elsewhere: the list is asked again.
  await app.waitForListener('inbox://changed');
  const reads = (await app.calls('watches_list')).length;
  await app.emit('inbox://changed', { count: 0, outcome: null });
  await app.waitForCalls('watches_list', reads + 1);
});

test('watch_add errors show in the form: empty fields first, then WATCH_NOT_A_FOLDER on the folder field', async ({ app, page }) => {
  await openSettings(app, { watch_add: { __error: { code: 'WATCH_NOT_A_FOLDER', message: '/home/u/notes.txt is not a folder' } } });
  const group = page.getByRole('region', { name: 'Watched folders' });
  await expect(group.locator('.watch-empty')).toHaveText('No folder is watched.');
  const folder = group.getByRole('textbox', { name: 'Folder', exact: true });
  const error = group.locator('.watch-add .watch-error');

  // Nothing typed: said before anything is sent.
  await group.getByRole('button', { name: 'Add watch' }).click();
  await expect(error).toHaveText('Name the folder to watch (. for the working folder itself).');
  await expect(folder).toBeFocused();
  await folder.fill('notes.txt');
  await folder.press('Enter');
  await expect(error).toHaveText('Say what to do with the files that arrive.');
  await expect(group.getByRole('textbox', { name: 'Request', exact: true })).toHaveAttribute('aria-invalid', 'true');
  await group.getByRole('textbox', { name: 'Request', exact: true }).fill('tidy');
  await group.getByRole('spinbutton', { name: 'Settle time in seconds' }).fill('-1');
  await group.getByRole('textbox', { name: 'Request', exact: true }).press('Enter');
  await expect(error).toHaveText('The settle time is a whole number of seconds, 0 or more.');
  expect(await app.calls('watch_add')).toEqual([]);

  // The engine refuses a file: its code and message under the form, the folder field marked, nothing cleared.
  await group.getByRole('spinbutton', { name: 'Settle time in seconds' }).fill('5');
  await group.getByRole('button', { name: 'Add watch' }).click();
  await expect.poll(() => app.calls('watch_add')).toEqual([{ folder: 'notes.txt', request: 'tidy', settle_secs: 5, trusted: false }]);
  await expect(error.locator('.error-code')).toHaveText('WATCH_NOT_A_FOLDER');
  await expect(error).toContainText('/home/u/notes.txt is not a folder');
  await expect(error).toHaveAttribute('role', 'alert');
  await expect(folder).toHaveAttribute('aria-invalid', 'true');
  await expect(folder).toHaveClass(/invalid/);
  await expect(folder).toBeFocused();
  await expect(folder).toHaveValue('notes.txt');
  await expect(group.getByRole('textbox', { name: 'Request', exact: true })).toHaveValue('tidy');
  await expect(group.getByRole('textbox', { name: 'Request', exact: true })).toHaveAttribute('aria-invalid', 'false');
  await expect(group.locator('.watch-row')).toHaveCount(0);
  await expect(page.locator('.errors')).toBeHidden();
  expect(await app.calls('settings_set')).toEqual([]);
  await group.scrollIntoViewIfNeeded();
  await app.screenshot('settings-watch-error');
});
