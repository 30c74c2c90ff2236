// The 13 pipeline stages in order, their labels, and which ones run once per request rather than per step.

export const STAGES = [
  { id: 'input', label: 'Reading request', global: true },
  { id: 'think', label: 'Planning', global: true },
  { id: 'validate_plan', label: 'Checking plan', global: true },
  { id: 'embed', label: 'Embedding' },
  { id: 'match', label: 'Matching skill' },
  { id: 'load', label: 'Loading skill' },
  { id: 'validate_params', label: 'Checking parameters' },
  { id: 'resolve', label: 'Resolving references' },
  { id: 'dispatch', label: 'Simulating' },
  { id: 'snapshot', label: 'Snapshot' },
  { id: 'hitl', label: 'Review' },
  { id: 'stage', label: 'Staging' },
  { id: 'commit', label: 'Committing', global: true },
];

const BY_ID = Object.fromEntries(STAGES.map((s, i) => [s.id, { ...s, index: i }]));

export function stageLabel(id) {
  return BY_ID[id]?.label ?? id;
}

export function stageIndex(id) {
  return BY_ID[id]?.index ?? -1;
}

export function isGlobalStage(id) {
  return Boolean(BY_ID[id]?.global);
}
