// Skills editor: list with diagnostics, live skill_check lint markers and problems list, save, external reload, new skill.
import { test, expect } from './support/harness.mjs';
import { skills, removeDuplicatesSource } from './support/fixtures.mjs';

const FILE = '/home/u/.config/scope-weaver/skills/remove-duplicates/SKILL.md';

/** In-page handlers: skill_source serves `sources`; skill_check reports a missing colon on line 2 and a whole-file warning. */
function editorHandlers({ text, file }) {
  const sources = { 'remove-duplicates': text };
  window.__sources = sources;
  window.__mock.handlers.skill_source = ({ name }) => {
    if (!(name in sources)) throw { code: 'UNKNOWN_SKILL', message: `no skill ${name}` };
    return { name, path: file.replace('remove-duplicates', name), text: sources[name] };
  };
  window.__mock.handlers.skill_check = ({ text: t }) => {
    const lines = t.split('\n');
    const out = [];
    if (!/^name:\s/.test(lines[1] ?? '')) {
      out.push({ file, line: 2, severity: 'error', code: 'YAML_SYNTAX', message: 'expected `key: value` in the frontmatter' });
      out.push({ file, line: 0, severity: 'warning', code: 'MISSING_FIELD', message: 'frontmatter needs `name`' });
    }
    return out;
  };
  window.__mock.handlers.skill_create = ({ name }) => {
    sources[name] = `---\nname: ${name}\ndescription: >\n  new\n---\n\n# ${name}\n`;
    return { name, path: file.replace('remove-duplicates', name) };
  };
}

async function openEditor(app, extra = {}) {
  await app.open('editor', {
    responses: {
      skills_list: skills,
      skill_save: { name: 'remove-duplicates', outcome: 'loaded', reembedded: true, diagnostics: [] },
      ...extra,
    },
    setup: editorHandlers,
    setupArg: { text: removeDuplicatesSource, file: FILE },
  });
  await expect(app.page.locator('.skill-item')).toHaveCount(skills.length);
}

async function openSkill(app, page, name = 'remove-duplicates') {
  await page.locator(`.skill-item[data-name="${name}"]`).click();
  await expect(page.locator('.e-title')).toHaveText(name);
  await expect.poll(() => page.evaluate(() => window.editorView.state.doc.toString())).toBe(removeDuplicatesSource);
  await expect(page.locator('.problems-count')).toHaveText('No problems');
}

test('skill list with diagnostics counts; opening a skill loads its source', async ({ app, page }) => {
  await app.open('editor', { responses: { skills_list: skills }, setup: editorHandlers, setupArg: { text: removeDuplicatesSource, file: FILE } });
  await expect(page.locator('.skill-item')).toHaveCount(skills.length);
  await expect(page.locator('.skill-item[data-name="skill-template"] .diag-warnings')).toHaveText('1');
  // The first skill has no source in this mock: the error is shown, nothing crashes.
  await expect(page.locator('.save-status')).toContainText('UNKNOWN_SKILL');
  await openSkill(app, page);
  await expect(page.locator('.skill-item[aria-current="true"]')).toHaveAttribute('data-name', 'remove-duplicates');
  await expect(page.locator('.e-path')).toHaveText(FILE);
  // Markdown + YAML frontmatter highlighting and line numbers are on.
  await expect(page.locator('.cm-lineNumbers .cm-gutterElement', { hasText: /^2$/ })).toHaveCount(1);
  await expect(page.locator('.cm-line').nth(1).locator('span').first()).toHaveText('name');
});

test('broken frontmatter: lint marker on the reported line, problems list; Ctrl+S saves the buffer', async ({ app, page }) => {
  await openEditor(app);
  await openSkill(app, page);
  // Remove the colon after `name` on line 2, by typing.
  await page.evaluate(() => {
    const v = window.editorView;
    const line = v.state.doc.line(2);
    v.dispatch({ selection: { anchor: line.from + 'name:'.length } });
    v.focus();
  });
  await page.keyboard.press('Backspace');
  await expect(page.locator('.dirty-dot')).toBeVisible();
  await expect.poll(async () => (await app.calls('skill_check')).at(-1)?.text.split('\n')[1]).toBe('name remove-duplicates');

  const problems = page.locator('.problem');
  await expect(problems).toHaveCount(2);
  await expect(problems.nth(0)).toHaveText(/remove-duplicates\/SKILL\.md:2\s*YAML_SYNTAX\s*expected `key: value` in the frontmatter/);
  await expect(problems.nth(1)).toHaveText(/SKILL\.md:0\s*MISSING_FIELD/);
  await expect(page.locator('.problems-count')).toHaveText('1 error · 1 warning');
  // The error marker sits in the gutter next to line 2; the whole-file warning on line 1.
  const rows = await page.evaluate(() => {
    const v = window.editorView;
    const top = (el) => Math.round(el.getBoundingClientRect().top);
    const lineTop = (n) => Math.round(v.coordsAtPos(v.state.doc.line(n).from).top);
    const err = document.querySelector('.cm-lint-marker-error');
    const warn = document.querySelector('.cm-lint-marker-warning');
    const range = document.querySelector('.cm-lintRange-error');
    return {
      err: err && Math.abs(top(err.closest('.cm-gutterElement')) - lineTop(2)) <= 3,
      warn: warn && Math.abs(top(warn.closest('.cm-gutterElement')) - lineTop(1)) <= 3,
      range: range?.textContent,
    };
  });
  expect(rows).toEqual({ err: true, warn: true, range: 'name remove-duplicates' });
  await app.screenshot('editor-diagnostics');

  await page.keyboard.press('Control+s');
  const [saved] = await app.waitForCalls('skill_save');
  expect(saved.name).toBe('remove-duplicates');
  expect(saved.text).toBe(removeDuplicatesSource.replace('name: remove-duplicates', 'name remove-duplicates'));
  await expect(page.locator('.save-status')).toHaveText('Saved · re-embedded remove-duplicates');
  await expect(page.locator('.dirty-dot')).toBeHidden();

  // Saving with errors keeps the previous version in use.
  await app.respond('skill_save', { name: 'remove-duplicates', outcome: 'kept_previous', reembedded: false, diagnostics: [] });
  await page.locator('button.save').click();
  await expect(page.locator('.save-status')).toHaveText('Saved with errors — previous version stays in use');
});

test('skills://changed reloads the open file when it has no unsaved edits', async ({ app, page }) => {
  await openEditor(app);
  await openSkill(app, page);
  await app.waitForListener('skills://changed');
  const edited = removeDuplicatesSource.replace('# Remove duplicates', '# Remove duplicate files');
  await page.evaluate((t) => {
    window.__sources['remove-duplicates'] = t;
  }, edited);
  await app.emit('skills://changed', { name: 'remove-duplicates', outcome: 'loaded', reembedded: true, diagnostics: [] });
  await expect.poll(() => page.evaluate(() => window.editorView.state.doc.toString())).toBe(edited);
  await expect(page.locator('.save-status')).toHaveText('Reloaded — the file changed on disk');

  // With unsaved edits the buffer is kept and a notice offers the reload.
  await page.evaluate(() => {
    const v = window.editorView;
    v.dispatch({ changes: { from: v.state.doc.length, insert: '\nlocal edit\n' } });
  });
  await page.evaluate((t) => {
    window.__sources['remove-duplicates'] = t;
  }, removeDuplicatesSource);
  await app.emit('skills://changed', { name: 'remove-duplicates', outcome: 'loaded', reembedded: true, diagnostics: [] });
  await expect(page.locator('.e-notice')).toContainText('remove-duplicates changed on disk');
  expect(await page.evaluate(() => window.editorView.state.doc.toString())).toContain('local edit');
});

test('New skill: validates, calls skill_create and opens the new skill', async ({ app, page }) => {
  await openEditor(app);
  await page.locator('.new-skill-btn').click();
  await page.locator('#new-name').fill('Sort Screenshots');
  await page.locator('.new-skill button[type="submit"]').click();
  await expect(page.locator('.form-error')).toContainText('lowercase letters');
  expect(await app.calls('skill_create')).toEqual([]);
  await page.locator('#new-name').fill('sort-screenshots');
  await page.locator('#new-desc').fill('Move screenshots into Pictures/Screenshots by month.');
  await page.locator('.new-skill button[type="submit"]').click();
  await expect.poll(() => app.calls('skill_create')).toEqual([{ name: 'sort-screenshots', description: 'Move screenshots into Pictures/Screenshots by month.' }]);
  await expect(page.locator('.e-title')).toHaveText('sort-screenshots');
  await expect(page.locator('.new-skill')).toBeHidden();

  await page.locator('.new-skill-btn').click();
  await app.respond('skill_create', null);
  await page.evaluate(() => {
    window.__mock.handlers.skill_create = () => {
      throw { code: 'SKILL_EXISTS', message: 'a skill named sort-screenshots exists' };
    };
  });
  await page.locator('#new-name').fill('sort-screenshots');
  await page.locator('#new-desc').fill('again');
  await page.locator('.new-skill button[type="submit"]').click();
  await expect(page.locator('.form-error')).toHaveText('SKILL_EXISTS: a skill named sort-screenshots exists');
});
