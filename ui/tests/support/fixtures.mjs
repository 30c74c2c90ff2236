// Test fixtures: app info, agents, history, skills (with their tools' descriptions) and skills_describe, settings and model progress, the seed run (with ops and questions) as a bar script, undo and recovery, saved workflows, watched folders, the inbox and its previews in the graph.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../fixtures/', import.meta.url));
const read = (name) => readFileSync(dir + name, 'utf8');

export const SEED_REQUEST =
  'Clean up my Downloads folder – remove duplicates, then organize the remaining files into subfolders by type';

export const appInfo = {
  root: '/home/u',
  shortcut: 'Alt+Space',
  shortcut_error: null,
  planner: 'rule',
  embedder: 'words-v1/glove100+lexical-v1/d284',
  skills_dir: '/home/u/.config/scope-weaver/skills',
  state_dir: '/home/u/.local/state/scope-weaver',
  version: '0.1.0',
};

export const agents = [
  { id: 'files', name: 'Files', description: 'Organise, clean up and search the working folder', skills: 10, default: true },
  { id: 'author', name: 'Skill author', description: 'Writes and tests new skills', skills: 2, default: false },
];

const minutesAgo = (m) => new Date(Date.now() - m * 60000).toISOString();

export const history = [
  { run_id: 'r3', at: minutesAgo(4), request: 'Find files larger than 500 MB in Videos', status: 'done', steps: 1, committed: false, error: null },
  { run_id: 'r2', at: minutesAgo(90), request: 'Archive everything in Projects/old into old-projects.zip', status: 'done', steps: 2, committed: true, error: null },
  { run_id: 'r1', at: minutesAgo(60 * 30), request: 'Rename my photos by date', status: 'created', steps: 0, committed: false, error: 'PLAN_INVALID: no skill renames by EXIF date' },
];

export const skills = JSON.parse(read('skills.json'));

/**
 * skills_describe({names: ["remove-duplicates"], force: true}): written, derived (no model configured);
 * and with a model that could not describe one of the tools (its derived description was written).
 */
export const skillsDescribed = [{ name: 'remove-duplicates', outcome: 'written', generated_by: 'derived', tools: 2, seconds: 0.08 }];
export const skillsDescribedFailed = [
  {
    name: 'remove-duplicates', outcome: 'written', generated_by: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf', tools: 2, seconds: 12.34,
    failed: ['remove: the answer had 1 example request, 3 at least are needed'],
  },
];
export const removeDuplicatesSource = read('remove-duplicates.SKILL.md');

export const settings = {
  working_root: '/home/u',
  thinker_backend: 'rule',
  thinker_model_path: null,
  thinker_rules_first: true,
  embedding_backend: 'words',
  embedding_model_path: null,
  hitl_mode: 'key',
  shortcut: 'Alt+Space',
  drop_folder: null,
  config_file: '/home/u/.config/scope-weaver/config.toml',
};

/** settings_set's reply when a planner and an embedder model were chosen: they load in the background. */
export const settingsWithModels = {
  ...settings,
  thinker_backend: 'mistralrs',
  thinker_model_path: '/models/qwen2.5-14b-instruct-q4_k_m.gguf',
  thinker_rules_first: false,
  embedding_backend: 'bert',
  embedding_model_path: '/models/bge-large-en-v1.5',
};

/** models://progress payloads while those load, and the engine's notices when the load is cancelled (model_load_cancel). */
export const modelsLoading = [
  { component: 'planner', state: 'loading', message: 'loading qwen2.5-14b-instruct-q4_k_m.gguf (8.4 GB)' },
  { component: 'embedder', state: 'loading', message: 'loading bge-large-en-v1.5' },
];
export const modelsCancelled = [
  { component: 'planner', state: 'cancelled', message: 'loading cancelled; still planning with the embedded rule planner' },
  { component: 'embedder', state: 'cancelled', message: 'loading cancelled; still embedding with words-v1/glove100+lexical-v1/d284' },
];

/** The ChangeOps the seed run's graph_delta events carry (the recorded fixture predates `ops`). */
export const OPS = {
  1: [],
  2: [
    { op: 'delete', path: 'Downloads/beach.jpg', kind: 'file', size: 13, expect: null },
    { op: 'delete', path: 'Downloads/old/beach.jpg', kind: 'file', size: 13, expect: null },
    { op: 'delete', path: 'Downloads/report_v1.pdf', kind: 'file', size: 20, expect: null },
  ],
  3: [
    { op: 'create_dir', path: 'Downloads/Images' },
    { op: 'move', from: 'Downloads/beach (1).jpg', to: 'Downloads/Images/beach (1).jpg', kind: 'file', expect: null },
    { op: 'create_dir', path: 'Downloads/Data' },
    { op: 'move', from: 'Downloads/export.csv', to: 'Downloads/Data/export.csv', kind: 'file', expect: null },
    { op: 'create_dir', path: 'Downloads/Documents' },
    { op: 'move', from: 'Downloads/report_final.pdf', to: 'Downloads/Documents/report_final.pdf', kind: 'file', expect: null },
    { op: 'create_dir', path: 'Downloads/Audio' },
    { op: 'move', from: 'Downloads/song.mp3', to: 'Downloads/Audio/song.mp3', kind: 'file', expect: null },
  ],
};

/** Every event of the recorded seed run (graph_delta with `ops`), and the RunReport it resolved to. */
export function seedRun() {
  const lines = read('seed-run.jsonl').trim().split('\n').map((l) => JSON.parse(l));
  const done = lines.pop();
  const events = lines.map((e) => (e.event === 'graph_delta' ? { ...e, ops: OPS[e.step] ?? [] } : e));
  return { events, report: done.report };
}

const ev = (event) => ({ kind: 'event', event });

/**
 * The seed run as the bar receives it in a real (not dry) run with `key` approvals:
 * phases of channel messages separated by questions. Returns
 * { phases: [[msg…]…], questions: [{id, question}…], report, reviewStep2, reviewStep3, reviewDiff }.
 */
export function seedScript({ dryRun = false } = {}) {
  const { events, report: dryReport } = seedRun();
  const at = (pred) => events.findIndex(pred);
  const hitl2 = at((e) => e.event === 'stage_started' && e.stage === 'hitl' && e.step === 2);
  const hitl3 = at((e) => e.event === 'stage_started' && e.stage === 'hitl' && e.step === 3);
  const commit = at((e) => e.event === 'stage_started' && e.stage === 'commit');
  const resolved = events.find((e) => e.event === 'references_resolved' && e.step === 2).params;
  const d2 = events.find((e) => e.event === 'dispatched' && e.step === 2);
  const d3 = events.find((e) => e.event === 'dispatched' && e.step === 3);
  const g2 = events.find((e) => e.event === 'graph_delta' && e.step === 2);
  const g3 = events.find((e) => e.event === 'graph_delta' && e.step === 3);

  const reviewStep2 = {
    step: 2, description: 'remove duplicates', skill: 'remove-duplicates', tool: 'remove', mutates: true, destructive: true,
    params: resolved, summary: d2.summary, data: d2.data, changes: g2.changes, ops: g2.ops,
  };
  const reviewStep3 = {
    step: 3, description: 'organize the remaining files into subfolders by type', skill: 'organize-by-type', tool: 'organize',
    mutates: true, destructive: false, params: d3.params, summary: d3.summary, data: d3.data, changes: g3.changes, ops: g3.ops,
  };
  const reviewDiff = {
    changes: [...g2.changes, ...g3.changes],
    ops: [...g2.ops, ...g3.ops],
    summary: 'Removed 3 duplicate files (saved 46 B). Organized 4 files into 4 subfolders.',
    dry_run: dryRun,
    rollback_points: [
      { step: 2, snapshot: 'snap-2', skill: 'remove-duplicates', tool: 'remove', changes: 3 },
      { step: 3, snapshot: 'snap-3', skill: 'organize-by-type', tool: 'organize', changes: 8 },
    ],
  };
  const text = dryRun
    ? dryReport.text
    : 'Removed 3 duplicate files (saved 46 B). Organized 4 files into 4 subfolders.\nCommitted 11 changes.';
  const tail = events.slice(commit + 1).map((e) => {
    if (e.event === 'report') return { ...e, text };
    if (e.event === 'finished') return { ...e, committed: !dryRun, dry_run: dryRun, text };
    return e;
  });
  const committedEvents = dryRun
    ? []
    : [
        { event: 'diff_reviewed', changes: 11, approved: true },
        { event: 'commit_progress', done: 11, total: 11 },
        { event: 'committed', applied: 11, summary: 'Committed 11 changes' },
      ];
  const phases = [
    events.slice(0, hitl2 + 1).map(ev),
    events.slice(hitl2 + 1, hitl3 + 1).map(ev),
    events.slice(hitl3 + 1, commit + 1).map(ev),
    [...committedEvents, ...tail].map(ev),
  ];
  const questions = [
    { kind: 'question', id: 1, question: { type: 'review_step', review: reviewStep2 } },
    { kind: 'question', id: 2, question: { type: 'review_step', review: reviewStep3 } },
    { kind: 'question', id: 3, question: { type: 'review_diff', review: reviewDiff } },
  ];
  const report = { ...dryReport, dry_run: dryRun, committed: !dryRun, applied_changes: dryRun ? 0 : 11, text };
  return { phases, questions, report, reviewStep2, reviewStep3, reviewDiff, events };
}

// ---------------------------------------------------------------- similar photos

export const SIMILAR_WARNING =
  '1 group(s) of similar photos: they are not identical copies, so look at each group (sizes and resolutions) before approving';

/**
 * The approval of a remove-duplicates `remove` step whose groups came from a `scan` with `similar: true`:
 * one group of three look-alike photos (most pixels first), the largest kept, the two others trashed
 * (`action: 'hardlink'`: turned into links to it).
 */
export function similarReviewStep({ action = 'remove' } = {}) {
  const group = {
    kind: 'similar', hash: 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8s=', size: 183000, count: 3, wasted_bytes: 61000,
    paths: ['Photos/beach.jpg', 'Photos/beach-sent.jpg', 'Photos/beach-small.jpg'],
    images: [
      { path: 'Photos/beach.jpg', size: 120000, width: 640, height: 480, distance: 0 },
      { path: 'Photos/beach-sent.jpg', size: 40000, width: 640, height: 480, distance: 12 },
      { path: 'Photos/beach-small.jpg', size: 21000, width: 320, height: 240, distance: 30 },
    ],
  };
  const kept = 'Photos/beach.jpg';
  const others = [{ path: 'Photos/beach-sent.jpg', size: 40000 }, { path: 'Photos/beach-small.jpg', size: 21000 }];
  const link = action === 'hardlink';
  return {
    step: 2, description: 'remove similar photos', skill: 'remove-duplicates', tool: 'remove', mutates: true, destructive: !link,
    params: link ? { groups: [group], action } : { groups: [group] },
    summary: link ? 'Linked 2 duplicate files to their kept copy (saved 59 KB)' : 'Removed 2 duplicate files (saved 59 KB)',
    data: {
      needs_review: SIMILAR_WARNING, action,
      deleted: link ? [] : others.map((o) => o.path), moved: [], linked: link ? others.map((o) => ({ path: o.path, to: kept })) : [], skipped: [],
      count: 2, kept: [kept], freed_bytes: 61000, groups_processed: 1, groups_skipped: 0,
    },
    changes: others.map((o) => (link ? `~ hardlink ${o.path} => ${kept}` : `- delete ${o.path} (${o.size} B)`)),
    ops: others.map((o) =>
      link
        ? { op: 'hardlink', path: o.path, to: kept, size: o.size, expect: null, expect_to: null }
        : { op: 'delete', path: o.path, kind: 'file', size: o.size, expect: null },
    ),
  };
}

// ---------------------------------------------------------------- undo and recovery

const secondsAgo = (m) => Math.round(Date.now() / 1000 - m * 60);

/** A history with an undo (u1) of r4, and r2 still in effect. */
export const undoHistory = [
  { run_id: 'u1', at: minutesAgo(2), request: 'undo r4: Sort Pictures by year', status: 'done', steps: 0, committed: true, error: null },
  history[0],
  { run_id: 'r4', at: minutesAgo(30), request: 'Sort Pictures by year', status: 'done', steps: 1, committed: true, error: null },
  history[1],
  history[2],
];

/** committed_runs({limit}) for `undoHistory`: r2 in effect, r4 undone by u1 (an undo). */
export const committedRuns = [
  { id: 'u1', request: 'undo r4: Sort Pictures by year', root: '/home/u', committed_at: secondsAgo(2), changes: 6, undoes: 'r4', undone_by: null, not_restorable: 0 },
  { id: 'r4', request: 'Sort Pictures by year', root: '/home/u', committed_at: secondsAgo(30), changes: 6, undoes: null, undone_by: 'u1', not_restorable: 0 },
  { id: 'r2', request: 'Archive everything in Projects/old into old-projects.zip', root: '/home/u', committed_at: secondsAgo(90), changes: 5, undoes: null, undone_by: null, not_restorable: 0 },
];

/**
 * undo_run of r2 as the bar receives it: `before` (request, undo_planned, one warning per kept /
 * not restorable path), the review_diff `question`, `after` (commit, report, finished), the `report`.
 */
export function undoScript() {
  const kept = [{ path: 'Projects/old/notes.txt', reason: 'changed since the run' }];
  const notRestorable = ['`Projects/old/build.log` was deleted permanently'];
  const ops = [
    { op: 'restore', path: 'Projects/old/design.psd', kind: 'file', size: 2097152, trashed: { id: '/home/u/.local/share/Trash/info/design.psd.trashinfo', name: 'design.psd', original_parent: '/home/u/Projects/old', time_deleted: 1718000000 } },
    { op: 'restore', path: 'Projects/old/spec.pdf', kind: 'file', size: 48213, trashed: { id: '/home/u/.local/share/Trash/info/spec.pdf.trashinfo', name: 'spec.pdf', original_parent: '/home/u/Projects/old', time_deleted: 1718000000 } },
    { op: 'delete', path: 'old-projects.zip', kind: 'file', size: 1843200, expect: null },
  ];
  const summary = 'Undo of r2 (“Archive everything in Projects/old into old-projects.zip”): 3 change(s); 1 kept as it is (changed since the run); 1 not restorable.\nNothing lost: 3 entries accounted for.';
  const text = `${summary}\nUndone: 2 restored from the trash, 1 deleted.`;
  const plan = { run: 'r2', snapshot: 7, changes: 3, kept, not_restorable: notRestorable };
  const before = [
    { event: 'request', id: 'u2', text: 'undo r2: Archive everything in Projects/old into old-projects.zip' },
    { event: 'undo_planned', undoes: 'r2', changes: 3, kept, not_restorable: notRestorable },
    { event: 'warning', step: null, message: '`Projects/old/notes.txt` stays as it is: changed since the run' },
    { event: 'warning', step: null, message: 'not restorable: `Projects/old/build.log` was deleted permanently' },
  ].map(ev);
  const question = {
    kind: 'question',
    id: 21,
    question: { type: 'review_diff', review: { summary, changes: ops.map((o) => `${o.op} ${o.path}`), ops, dry_run: false, rollback_points: [] } },
  };
  const after = [
    { event: 'diff_reviewed', changes: 3, approved: true },
    { event: 'commit_progress', done: 3, total: 3 },
    { event: 'committed', applied: 3, summary: '2 restored from the trash, 1 deleted' },
    { event: 'report', text },
    { event: 'finished', committed: true, dry_run: false, text, stage_ms: {} },
  ].map(ev);
  const report = { id: 'u2', undoes: 'r2', plan, dry_run: false, committed: true, applied_changes: 3, text };
  return { before, question, after, report, text };
}

/** pending_recovery(): a commit of 8 changes stopped after 3; the 4th in doubt. */
export const recoveryReport = {
  journal: '/home/u/.local/state/scope-weaver/journal/commit-1718000000.json',
  root: '/home/u',
  total: 8,
  done_before: 3,
  in_doubt: ['move Downloads/export.csv -> Downloads/Data/export.csv', 'applied'],
  pending: [
    'mkdir Downloads/Documents/',
    'move Downloads/report_final.pdf -> Downloads/Documents/report_final.pdf',
    'mkdir Downloads/Audio/',
    'move Downloads/song.mp3 -> Downloads/Audio/song.mp3',
  ],
  conflicts: [],
  completed: null,
  finished: false,
};

/** finish_recovery() when it went through. */
export const recoveryFinished = {
  ...recoveryReport,
  in_doubt: null,
  pending: [],
  completed: {
    applied: 4, created: 2, moved: 2, copied: 0, deleted: 0, linked: 0, trashed: 0, restored: 0, removed_folders: 0, unlinked: 0, tagged: 0,
    run_id: 'r5', warnings: [], accounting: null, verified: true, freed_bytes: 0, journal: null,
  },
  finished: true,
};

/** finish_recovery() when something on disk blocks it. */
export const recoveryBlocked = {
  ...recoveryReport,
  conflicts: [
    { kind: 'target_exists', path: 'Downloads/Documents/report_final.pdf' },
    { kind: 'source_missing', path: 'Downloads/song.mp3' },
  ],
};

// ---------------------------------------------------------------- saved workflows

/** workflow_save({run_id: "r2", name: "tidy"}): r2 of `undoHistory` written as the workflow `tidy`. */
export const workflowSaved = {
  name: 'tidy',
  path: '/home/u/.config/scope-weaver/skills/tidy/SKILL.md',
  run_id: 'r2',
  request: 'Archive everything in Projects/old into old-projects.zip',
  triggers: ['tidy {path}', 'archive everything in {path} into old-projects.zip'],
  steps: ['search-files/find', 'archive-files/create'],
  folder: 'Projects/old',
  postconditions: ['exists on {path}'],
};

/** workflow_suggestions(): three sequences committed three times or more, the most frequent first. */
export const workflowSuggestions = [
  {
    signature: ['remove-duplicates/remove', 'organize-by-type/organize'],
    name: 'remove-duplicates-then-organize-by-type',
    runs: ['r9', 'r8', 'r7'],
    requests: ['Tidy Inbox', 'remove duplicates in Desktop, then sort it by type', SEED_REQUEST],
    folders: ['Inbox', 'Desktop', 'Downloads'],
  },
  {
    signature: ['archive-files/create', 'manage-files/delete'],
    name: 'archive-files-then-manage-files',
    runs: ['r12', 'r11', 'r10'],
    requests: ['Zip Projects/old and delete it', 'Archive Scans then remove them', 'Archive Projects/2019 and delete the folder'],
    folders: ['Projects/old', 'Scans', 'Projects/2019'],
  },
  {
    signature: ['batch-rename/rename', 'batch-rename/rename_one'],
    name: 'batch-rename',
    runs: ['r15', 'r14', 'r13'],
    requests: ['Rename the photos', 'Rename the photos again', 'Rename the scans'],
    folders: ['.'],
  },
];

// ---------------------------------------------------------------- watched folders and the inbox

/** watches_list(): Downloads (trusted, handled 12 minutes ago) and Scans (never handled yet). */
export const watches = [
  { id: 'downloads-3fa2c1', root: '/home/u', folder: 'Downloads', request: SEED_REQUEST, settle_secs: 5, trusted: true, last_handled_ms: Date.now() - 12 * 60000 },
  { id: 'scans-9b01de', root: '/home/u', folder: 'Scans', request: 'organize Scans by type', settle_secs: 30, trusted: false, last_handled_ms: null },
];

/** watch_add({folder: "Inbox", request: "tidy Inbox", settle_secs: 10, trusted: true}). */
export const watchAdded = { id: 'inbox-5c7e22', root: '/home/u', folder: 'Inbox', request: 'tidy Inbox', settle_secs: 10, trusted: true, last_handled_ms: null };

/**
 * inbox_list(): what the two watches would change, oldest first. Downloads' item is the seed run's
 * diff (it deletes, so even its trusted watch parks it); Scans' only moves files into a new folder.
 * Both are requests planned again on approval, not a given plan (`plan: null`).
 */
export function inboxItems() {
  const { reviewDiff } = seedScript();
  return [
    {
      id: 'downloads-3fa2c1-r20',
      watch: 'downloads-3fa2c1',
      root: '/home/u',
      request: SEED_REQUEST,
      at: minutesAgo(12),
      changes: reviewDiff.changes,
      counts: '3 deletions · 4 moves · 4 new folders',
      destructive: true,
      summary: reviewDiff.summary,
      plan: null,
    },
    {
      id: 'scans-9b01de-r21',
      watch: 'scans-9b01de',
      root: '/home/u/Documents/Archive/2024/Paperwork',
      request: 'organize Scans by type',
      at: minutesAgo(3),
      changes: ['+ mkdir  Scans/Documents/', '~ move   Scans/invoice.pdf -> Scans/Documents/invoice.pdf'],
      counts: '1 move · 1 new folder',
      destructive: false,
      summary: 'Organized 1 file into 1 subfolder.',
      plan: null,
    },
  ];
}

/**
 * inbox_preview({id}): the Downloads item simulated again on its folder as it is now (some of its
 * changes are done already), and the Scans item, whose folder already looks like it would.
 */
export const inboxPreviews = {
  'downloads-3fa2c1-r20': { id: 'downloads-3fa2c1-r20', root: '/home/u', changes: 4, counts: '1 deletion · 3 moves' },
  'scans-9b01de-r21': { id: 'scans-9b01de-r21', root: '/home/u/Documents/Archive/2024/Paperwork', changes: 0, counts: '' },
};
