// Settings window: load, pickers, backend-dependent model fields, save, CONFIG_INVALID problem list, model progress.
import { test, expect } from './support/harness.mjs';
import { settings } from './support/fixtures.mjs';

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
  await page.locator('button[aria-label="Choose planner model"]').click();
  await expect(page.locator('#planner-model')).toHaveValue('/models/qwen2.5-1.5b-instruct-q4_k_m.gguf');
  expect(await app.calls('pick_file')).toEqual([{ filters: [{ name: 'GGUF model', extensions: ['gguf'] }] }]);

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
      embedding_backend: 'lexical',
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
