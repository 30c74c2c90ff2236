// Undo and recovery in words: the undo_planned event, a change in doubt's verdict, a conflict that blocks a commit.
import { plural } from './dom.js';

/** "Undo of r2: 5 changes; 1 kept as it is; 2 not restorable" (from an `undo_planned` event). */
export function undoPlannedText(ev) {
  const kept = ev?.kept?.length ?? 0;
  const lost = ev?.not_restorable?.length ?? 0;
  const parts = [plural(ev?.changes ?? 0, 'change')];
  if (kept) parts.push(`${kept} kept as ${kept === 1 ? 'it is' : 'they are'}`);
  if (lost) parts.push(`${lost} not restorable`);
  return `Undo of ${ev?.undoes ?? 'the run'}: ${parts.join('; ')}`;
}

/**
 * What the disk says about the change that was running when a commit stopped
 * (`InDoubt`: "applied" | "not_applied" | "partial" | {unclear: why}) → [kind, text].
 */
export function verdictText(verdict) {
  if (verdict === 'applied') return ['ok', 'applied'];
  if (verdict === 'not_applied') return ['muted', 'not applied'];
  if (verdict === 'partial') return ['warn', 'half done: cleaned up and redone'];
  if (verdict && typeof verdict === 'object') {
    const [kind, why] = Object.entries(verdict)[0] ?? ['unclear', ''];
    return ['warn', `${kind.replace(/_/g, ' ')}${why ? `: ${why}` : ''}`];
  }
  return ['muted', String(verdict ?? 'unknown')];
}

const CONFLICT = {
  changed_since_scan: 'changed on disk since the scan',
  source_missing: 'no longer exists',
  target_exists: 'something already sits there',
  parent_missing: 'its folder is missing',
};

/** A `Conflict` ({kind, path, …}) → { path, text }. */
export function conflictText(c) {
  if (typeof c === 'string') return { path: '', text: c };
  const kind = String(c?.kind ?? 'conflict');
  let text = CONFLICT[kind] ?? kind.replace(/_/g, ' ');
  if (kind === 'changed_since_scan' && c.expected && c.found) text += ` (expected ${c.expected}, found ${c.found})`;
  return { path: c?.path ?? '', text };
}
