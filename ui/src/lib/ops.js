// ChangeOp helpers: group a step's or a run's side effects by kind, count them, list the paths they touch.

/** Display order and wording of each ChangeOp kind. */
export const OP_KINDS = [
  { op: 'delete', title: 'Delete', noun: 'deletion', icon: 'trash', destructive: true },
  { op: 'hardlink', title: 'Replace by hardlink', noun: 'hardlink', icon: 'link', destructive: false },
  { op: 'move', title: 'Move', noun: 'move', icon: 'move', destructive: false },
  { op: 'copy', title: 'Copy', noun: 'copy', nounPlural: 'copies', icon: 'copy', destructive: false },
  { op: 'create_dir', title: 'Create folder', noun: 'new folder', icon: 'folder', destructive: false },
  { op: 'create_file', title: 'Create file', noun: 'new file', icon: 'file', destructive: false },
  { op: 'create_archive', title: 'Create archive', noun: 'archive', icon: 'archive', destructive: false },
  { op: 'extract_archive', title: 'Extract archive', noun: 'extraction', icon: 'archive', destructive: false },
  { op: 'restore', title: 'Restore from the trash', noun: 'restore', icon: 'file', destructive: false },
  { op: 'unlink', title: 'Give back its own copy', noun: 'unlink', icon: 'link', destructive: false },
  { op: 'remove_dir', title: 'Remove empty folder', noun: 'removed folder', icon: 'folder', destructive: false },
];

const KIND = Object.fromEntries(OP_KINDS.map((k) => [k.op, k]));

export function isDestructiveOp(op) {
  return op?.op === 'delete';
}

/** The primary path an op is about (used for display and for the graph highlight). */
export function opTarget(op) {
  switch (op.op) {
    case 'move':
    case 'copy':
      return op.to;
    case 'create_archive':
      return op.target;
    case 'extract_archive':
      return op.target;
    default:
      return op.path;
  }
}

/** Every node id an op touches (source and destination), for highlighting in the graph. */
export function opPaths(op) {
  const trim = (p) => String(p).replace(/\/+$/, '');
  switch (op.op) {
    case 'move':
    case 'copy':
      return [trim(op.from), trim(op.to)];
    case 'create_archive':
      return [...(op.sources ?? []).map(trim), trim(op.target)];
    case 'extract_archive':
      return [trim(op.archive), trim(op.target)];
    case 'hardlink':
    case 'unlink':
      return [trim(op.path), trim(op.to)];
    default:
      return op.path ? [trim(op.path)] : [];
  }
}

/**
 * Groups ops by kind, in OP_KINDS order:
 * [{ op, title, noun, icon, destructive, items: [op…], bytes }]
 */
export function groupOps(ops = []) {
  const groups = new Map();
  for (const op of ops) {
    const kind = KIND[op.op] ?? { op: op.op, title: op.op, noun: 'change', icon: 'spark', destructive: false };
    if (!groups.has(kind.op)) groups.set(kind.op, { ...kind, items: [], bytes: 0 });
    const g = groups.get(kind.op);
    g.items.push(op);
    if (typeof op.size === 'number') g.bytes += op.size;
  }
  const order = OP_KINDS.map((k) => k.op);
  return [...groups.values()].sort((a, b) => rank(order, a.op) - rank(order, b.op));
}

function rank(order, op) {
  const i = order.indexOf(op);
  return i === -1 ? order.length : i;
}

/** "3 deletions · 4 moves · 4 new folders". */
export function countsText(groups) {
  return groups
    .map((g) => {
      const n = g.items.length;
      const many = g.nounPlural ?? `${g.noun}s`;
      return `${n} ${n === 1 ? g.noun : many}`;
    })
    .join(' · ');
}

/**
 * Fallback when an event carries only the readable `changes` lines (older engines):
 * "- delete Downloads/a.jpg (13 B)", "+ mkdir  Downloads/Images/", "~ move   a -> b".
 */
export function opsFromChanges(changes = []) {
  const ops = [];
  for (const line of changes) {
    const m = /^\s*[-+~*]?\s*(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, verb, rest] = m;
    const arrow = rest.split(/\s+->\s+/);
    if (verb === 'delete' || verb === 'rm') {
      const sm = /^(.*?)(?:\s+\(([\d.]+)\s*(B|KB|MB|GB)\))?$/.exec(rest.trim());
      ops.push({ op: 'delete', path: sm[1], kind: 'file', size: sm[2] ? toBytes(sm[2], sm[3]) : undefined });
    } else if (verb === 'mkdir') {
      ops.push({ op: 'create_dir', path: rest.trim().replace(/\/+$/, '') });
    } else if ((verb === 'move' || verb === 'rename') && arrow.length === 2) {
      ops.push({ op: 'move', from: arrow[0].trim(), to: arrow[1].trim(), kind: 'file' });
    } else if (verb === 'copy' && arrow.length === 2) {
      ops.push({ op: 'copy', from: arrow[0].trim(), to: arrow[1].trim(), kind: 'file' });
    } else if (verb === 'create' || verb === 'write') {
      ops.push({ op: 'create_file', path: rest.trim() });
    }
  }
  return ops;
}

function toBytes(n, unit) {
  const mult = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[unit] ?? 1;
  return Math.round(Number(n) * mult);
}

/** The ops of an event or review: its `ops` when present, else parsed from `changes`. */
export function opsOf(x) {
  if (Array.isArray(x?.ops) && x.ops.length) return x.ops;
  return opsFromChanges(x?.changes ?? []);
}
