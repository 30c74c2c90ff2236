// Skills editor: list with diagnostics, live skill_check lint markers and problems list, save, external reload, new skill, the open skill's described tools and "Describe".
import { test, expect } from './support/harness.mjs';
import { skills, removeDuplicatesSource, skillsDescribed, skillsDescribedFailed } from './support/fixtures.mjs';

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

test('the tools pane: each tool\'s summary and example requests, and where the descriptions come from', async ({ app, page }) => {
  await openEditor(app);
  const pane = page.getByRole('complementary', { name: 'Tools' });
  // No skill open yet (the first one has no source in this mock): nothing to describe.
  await expect(pane.locator('.describe-btn')).toBeDisabled();
  await openSkill(app, page);
  await expect(pane.locator('.tool-entry')).toHaveCount(2);

  const scan = pane.locator('.tool-entry[data-tool="scan"]');
  await expect(scan.locator('.tool-name')).toHaveText('scan');
  await expect(scan.locator('.tool-summary')).toHaveText('Finds files that are exact copies of each other and how much space they waste.');
  await expect(scan.locator('.tool-summary')).toHaveAttribute('title', 'Find groups of identical files and the space they waste');
  await expect(scan.locator('.tool-examples')).toHaveText(
    'Ask: “find duplicate photos in Pictures”, “which files in Downloads are copies”, “how much space do duplicates take in Documents”',
  );
  await expect(scan.locator('.tool-example')).toHaveCount(3);
  await expect(scan.locator('.tool-readonly')).toHaveText('read-only');
  const remove = pane.locator('.tool-entry[data-tool="remove"]');
  await expect(remove.locator('.tool-summary')).toHaveText('Deletes the extra copies in each group of identical files and keeps one of each.');
  await expect(remove.locator('.tool-examples')).toHaveText('Ask: “remove duplicates in Downloads”, “dedupe my Music folder”');
  await expect(remove.locator('.tool-deletes')).toHaveText('deletes');
  await expect(pane.locator('.tools-origin')).toHaveText('Described by qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');
  await expect(pane.locator('.tools-origin')).toHaveClass(/\bmodel\b/);
  await expect(pane.locator('.describe-btn')).toBeEnabled();
  // Beside the editor, not over it.
  const [editorBox, paneBox] = [await page.locator('.e-editor').boundingBox(), await pane.boundingBox()];
  expect(editorBox.x + editorBox.width).toBeLessThanOrEqual(paneBox.x + 1);
  await app.screenshot('editor-tools');

  // A skill without a descriptions.json: derived from its SKILL.md, and why.
  await page.evaluate(() => {
    window.__sources['organize-by-type'] = '---\nname: organize-by-type\n---\n';
  });
  await page.locator('.skill-item[data-name="organize-by-type"]').click();
  await expect(page.locator('.e-title')).toHaveText('organize-by-type');
  await expect(pane.locator('.tools-origin')).toHaveText('Derived from SKILL.md — no descriptions.json');
  await expect(pane.locator('.tools-origin')).toHaveClass(/\bderived\b/);
  await expect(pane.locator('.tool-entry')).toHaveCount(2);
  await expect(pane.locator('.tool-entry[data-tool="preview_categories"] .tool-examples')).toHaveText('Ask: “how many files of each type are in Downloads”');
  // A skill the engine lists without descriptions (an older engine): its tools' lines, no origin line, no "Ask:".
  await page.evaluate(() => {
    window.__sources['archive-files'] = '---\nname: archive-files\n---\n';
  });
  await page.locator('.skill-item[data-name="archive-files"]').click();
  await expect(page.locator('.e-title')).toHaveText('archive-files');
  await expect(pane.locator('.tools-origin')).toBeHidden();
  await expect(pane.locator('.tool-entry')).toHaveCount(3);
  await expect(pane.locator('.tool-entry').first().locator('.tool-summary')).toHaveText(skills.find((x) => x.name === 'archive-files').tools[0].description);
  await expect(pane.locator('.tool-examples')).toHaveCount(0);
});

test('"Describe" calls skills_describe with the skill\'s name and force, shows "Describing…", reloads the list and says what it did', async ({ app, page }) => {
  await openEditor(app);
  await openSkill(app, page);
  const pane = page.getByRole('complementary', { name: 'Tools' });
  const button = pane.locator('.describe-btn');
  const status = pane.locator('.describe-status');
  await expect(status).toBeHidden();
  const lists = (await app.calls('skills_list')).length;

  // The engine writes descriptions.json (derived: no model) and lists the skill with it.
  const rewritten = skills.map((x) => (x.name === 'remove-duplicates' ? { ...x, descriptions: { generated_by: 'derived', stored: true } } : x));
  await page.evaluate(([answer, list]) => {
    window.__mock.handlers.skills_describe = () =>
      new Promise((resolve) => {
        window.__finishDescribe = () => {
          window.__mock.responses.skills_list = list;
          resolve(answer);
        };
      });
  }, [skillsDescribed, rewritten]);
  await button.click();
  expect(await app.waitForCalls('skills_describe')).toEqual([{ names: ['remove-duplicates'], force: true }]);
  await expect(status).toHaveText('Describing…');
  await expect(status.locator('.spinner')).toHaveCount(1);
  await expect(button).toBeDisabled();
  await page.evaluate(() => window.__finishDescribe());
  await expect(status).toHaveText('Written by derived in 0.1 s');
  await expect(status).toHaveClass(/\bok\b/);
  await expect(button).toBeEnabled();
  await expect.poll(async () => (await app.calls('skills_list')).length).toBeGreaterThan(lists);
  await expect(pane.locator('.tools-origin')).toHaveText('Derived from SKILL.md (descriptions.json)');

  // A model that could not describe one tool: the time, and how many were derived instead (why, in the title).
  const byModel = skills.map((x) => (x.name === 'remove-duplicates' ? { ...x, descriptions: { generated_by: skillsDescribedFailed[0].generated_by, stored: true } } : x));
  await page.evaluate(([answer, list]) => {
    window.__mock.handlers.skills_describe = () => {
      window.__mock.responses.skills_list = list;
      return answer;
    };
  }, [skillsDescribedFailed, byModel]);
  await button.click();
  await expect(status).toHaveText('Written by qwen2.5-coder-1.5b-instruct-q4_k_m.gguf in 12.3 s · 1 of 2 derived instead');
  await expect(pane.locator('.tools-origin')).toHaveText('Described by qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');
  await expect(status).toHaveClass(/\bwarn\b/);
  await expect(status.locator('span[title]')).toHaveAttribute('title', skillsDescribedFailed[0].failed[0]);
  await app.screenshot('editor-describe');

  // Refused: the code and message, the button back.
  await page.evaluate(() => {
    window.__mock.handlers.skills_describe = () => {
      throw { code: 'RUN_BUSY', message: 'a request is running' };
    };
  });
  await button.click();
  await expect(status).toHaveText('Describe failed — RUN_BUSY: a request is running');
  await expect(status).toHaveClass(/\berror\b/);
  await expect(button).toBeEnabled();
  expect(await app.calls('skills_describe')).toEqual([
    { names: ['remove-duplicates'], force: true },
    { names: ['remove-duplicates'], force: true },
    { names: ['remove-duplicates'], force: true },
  ]);

  // The outcome belongs to its skill: another skill shows none.
  await page.evaluate(() => {
    window.__sources['organize-by-type'] = '---\nname: organize-by-type\n---\n';
  });
  await page.locator('.skill-item[data-name="organize-by-type"]').click();
  await expect(page.locator('.e-title')).toHaveText('organize-by-type');
  await expect(status).toBeHidden();
});
