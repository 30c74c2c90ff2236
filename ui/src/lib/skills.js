// Skill look-ups shared by the windows: vis colours and tool metadata from skills_list().
import { api } from '../ipc.js';

const FALLBACK = '#8B93A7';
let cache = null;

/** Loads skills_list() once (call refresh() after skills://changed). Never rejects. */
export async function loadSkills(refresh = false) {
  if (cache && !refresh) return cache;
  try {
    cache = await api.skillsList();
  } catch {
    cache = cache ?? [];
  }
  return cache;
}

/** The skill's vis.json colour, or a neutral grey. */
export function skillColor(skills, name) {
  const s = skills?.find((x) => x.name === name);
  return s?.vis?.color ?? FALLBACK;
}

/** True when vis.json or the tool list marks this tool destructive. */
export function toolDestructive(skills, skill, tool) {
  const s = skills?.find((x) => x.name === skill);
  if (!s) return false;
  if (s.vis?.tools?.[tool]?.destructive) return true;
  return Boolean(s.tools?.find((t) => t.name === tool)?.destructive);
}
