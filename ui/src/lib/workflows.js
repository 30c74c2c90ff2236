// Saved workflows in words: a name suggested from a request, the engine's skill-name rule, the trigger to say again, a suggestion's steps and folders.

/** The engine's limit on a skill name's length (BAD_SKILL_NAME). */
export const MAX_NAME_LENGTH = 64;

/** How many words of the request a suggested name keeps. */
const NAME_WORDS = 4;

/** Words a suggested name leaves out (it says what is done, not to what). */
const FILLER = new Set([
  'a', 'an', 'the', 'my', 'our', 'your', 'all', 'of', 'in', 'into', 'to', 'for', 'from', 'on', 'at', 'with',
  'and', 'then', 'please', 'this', 'that', 'these', 'those', 'me', 'it',
]);

/** A workflow name from a request: "Clean up my Downloads folder – …" → "clean-up-downloads-folder". */
export function nameFromRequest(request) {
  const words = String(request ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const meaningful = words.filter((w) => !FILLER.has(w));
  const name = (meaningful.length ? meaningful : words)
    .slice(0, NAME_WORDS)
    .join('-')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/^-+|-+$/g, '');
  return name || 'my-workflow';
}

/**
 * What is wrong with a workflow name, by the engine's rule for skill names (lowercase letters, digits and
 * hyphens, at most 64, not starting or ending with a hyphen), or null when it is fine.
 */
export function nameProblem(name) {
  if (!name) return 'Give the workflow a name, such as tidy-downloads.';
  if (/[^a-z0-9-]/.test(name)) return 'Use lowercase letters, digits and hyphens only, such as tidy-downloads.';
  if (name.startsWith('-') || name.endsWith('-')) return 'A name cannot start or end with a hyphen.';
  if (name.length > MAX_NAME_LENGTH) return `At most ${MAX_NAME_LENGTH} characters (this one has ${name.length}).`;
  return null;
}

/** The words that run a saved workflow again: its first trigger with `{path}` as the folder it acted on. */
export function triggerToSay(saved) {
  const triggers = saved?.triggers ?? [];
  const folder = saved?.folder && saved.folder !== '.' ? saved.folder : null;
  // A workflow of the working folder itself has a trigger without the folder; "tidy ." says nothing.
  const trigger = (folder ? triggers[0] : triggers.find((t) => !t.includes('{path}')) ?? triggers[0]) ?? saved?.name ?? '';
  return trigger.replaceAll('{path}', folder ?? '.').trim();
}

/** A saved workflow's steps ("skill/tool") as "remove-duplicates/remove → organize-by-type/organize". */
export function stepsText(steps) {
  return (steps ?? []).join(' → ');
}

/** A suggestion's tool sequence by its skills ("remove-duplicates → organize-by-type"); a skill used twice keeps its tools. */
export function signatureText(signature) {
  const skills = (signature ?? []).map((s) => String(s).split('/')[0]);
  return (signature ?? []).map((s, i) => (skills.indexOf(skills[i]) !== skills.lastIndexOf(skills[i]) ? s : skills[i])).join(' → ');
}

/** The folders a suggestion's runs acted on: "Inbox, Desktop, Downloads", "+ 2 more" past `max`. */
export function foldersText(folders, max = 3) {
  const names = (folders ?? []).map((f) => (f === '.' || f === '' ? 'the working folder' : f));
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} + ${names.length - max} more` : shown;
}
