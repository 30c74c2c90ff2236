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

/**
 * The tool's vis.json label with its params filled in ("Remove duplicates (keep {keep})" →
 * "Remove duplicates (keep newest)"); null when the skill has no label for the tool.
 */
export function toolLabel(skills, skill, tool, params = {}) {
  const template = skills?.find((x) => x.name === skill)?.vis?.tools?.[tool]?.label;
  if (!template) return null;
  return template.replace(/\{(\w+)\}/g, (_, key) => {
    const v = params?.[key];
    if (v === undefined || v === null) return '…';
    if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? '' : 's'}`;
    return typeof v === 'object' ? '…' : String(v);
  });
}
