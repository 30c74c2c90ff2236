// Test fixtures: app info, agents, history, skills, and the seed run (with ops and questions) as a bar script.
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
  embedder: 'lexical',
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
export const removeDuplicatesSource = read('remove-duplicates.SKILL.md');

export const settings = {
  working_root: '/home/u',
  thinker_backend: 'rule',
  thinker_model_path: null,
  embedding_backend: 'lexical',
  embedding_model_path: null,
  hitl_mode: 'key',
  shortcut: 'Alt+Space',
  config_file: '/home/u/.config/scope-weaver/config.toml',
};

/** The ChangeOps the seed run's graph_delta events carry (the recorded fixture predates `ops`). */
export const OPS = {
  1: [],
  2: [
    { op: 'delete', path: 'Downloads/beach.jpg', kind: 'file', size: 13 },
    { op: 'delete', path: 'Downloads/old/beach.jpg', kind: 'file', size: 13 },
    { op: 'delete', path: 'Downloads/report_v1.pdf', kind: 'file', size: 20 },
  ],
  3: [
    { op: 'create_dir', path: 'Downloads/Images' },
    { op: 'move', from: 'Downloads/beach (1).jpg', to: 'Downloads/Images/beach (1).jpg', kind: 'file' },
    { op: 'create_dir', path: 'Downloads/Data' },
    { op: 'move', from: 'Downloads/export.csv', to: 'Downloads/Data/export.csv', kind: 'file' },
    { op: 'create_dir', path: 'Downloads/Documents' },
    { op: 'move', from: 'Downloads/report_final.pdf', to: 'Downloads/Documents/report_final.pdf', kind: 'file' },
    { op: 'create_dir', path: 'Downloads/Audio' },
    { op: 'move', from: 'Downloads/song.mp3', to: 'Downloads/Audio/song.mp3', kind: 'file' },
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
