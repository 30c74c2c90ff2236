// Settings window: load, pickers, backend-dependent model fields, save, CONFIG_INVALID problem list, model progress.
import { test, expect } from './support/harness.mjs';
import { settings, appInfo } from './support/fixtures.mjs';

async function openSettings(app, extra = {}) {
  await app.open('settings', { responses: { settings_get: settings, ...extra } });
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
      embedding_backend: 'words',
      embedding_model_path: null,
      hitl_mode: 'all',
      shortcut: 'Hyper+Q',
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
