// Skill look-ups shared by the windows: vis colours and tool metadata from skills_list().
import { api } from '../ipc.js';
import { fmtBytes } from './dom.js';
import { skillIcon } from './icons.js';

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

/** The skill's vis.json `icon`, as a name for icon() (a generic one when it has none). */
export function skillIconName(skills, name) {
  return skillIcon(skills?.find((x) => x.name === name)?.vis?.icon);
}

/** True when the tool is destructive: its vis.json entry says so (else the tool list of skills_list()). */
export function isDestructiveTool(skills, skill, tool) {
  const s = skills?.find((x) => x.name === skill);
  const vis = s?.vis?.tools?.[tool]?.destructive;
  if (typeof vis === 'boolean') return vis;
  return Boolean(s?.tools?.find((t) => t.name === tool)?.destructive);
}

/**
 * The tool's vis.json label with its params filled in ("Remove duplicates (keep {keep})" →
 * "Remove duplicates (keep newest)"); null when the skill has no label for the tool.
 */
export function toolLabel(skills, skill, tool, params = {}) {
  const template = skills?.find((x) => x.name === skill)?.vis?.tools?.[tool]?.label;
  return typeof template === 'string' && template.trim() ? fillLabel(template, params) : null;
}

// A word that only makes sense next to the value after it ("in {path}", "→ {target}", "≥ {min_size}").
const CONNECTOR = '(?:in|of|as|for|from|to|into|since|with|on|at|by|→|->|≥|≤|>|<|=)';
const PLACEHOLDER = new RegExp(`(^|\\s+)(?:(${CONNECTOR})\\s+)?([^\\s{}]*)\\{(\\w+)\\}([^\\s{}]*)`, 'gi');

/**
 * Fills `{param}` placeholders from `params`. A placeholder without a usable value is left out cleanly:
 * with the connector word before it and the quotes or punctuation stuck to it, or with the whole
 * "(…)" part it sits in ("Files ≥ {min_size} in {path}" without min_size → "Files in Downloads").
 */
export function fillLabel(template, params = {}) {
  const value = (key) => labelValue(key, params?.[key]);
  let out = String(template).replace(/\s*\(([^()]*)\)/g, (whole, inner) =>
    [...inner.matchAll(/\{(\w+)\}/g)].some(([, key]) => value(key) === null) ? '' : whole,
  );
  out = out.replace(PLACEHOLDER, (whole, space, conn, before, key, after) => {
    const v = value(key);
    if (v === null) return '';
    return `${space}${conn ? `${conn} ` : ''}${before}${v}${after}`;
  });
  return out
    .replace(/\s+/g, ' ')
    .replace(new RegExp(`^${CONNECTOR}\\s+`, 'i'), '')
    .replace(new RegExp(`\\s+${CONNECTOR}$`, 'i'), '')
    .trim();
}

/** A param as label text; null when there is none to show (missing, empty, an object, a `$step(n)` reference). */
function labelValue(key, v) {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number') return /size|bytes/i.test(key) ? fmtBytes(v) : String(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /^\$step\(\d+\)/.test(v.trim()) ? null : v;
  if (Array.isArray(v)) {
    if (!v.length) return null;
    if (v.length === 1) return labelValue(key, v[0]) ?? '1 item';
    return `${v.length} items`;
  }
  // A node from an earlier step's result: its path.
  if (typeof v === 'object') return labelValue(key, v.path ?? v.id ?? null);
  return null;
}
