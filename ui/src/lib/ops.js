// ChangeOp helpers: group a step's or a run's side effects by kind, count them, list the paths they touch.

// Each kind's words, icon and emphasis come from the engine (sandbox::OP_KINDS), generated into
// ../generated/op-kinds.json; the display order is the table's.
import kinds from '../generated/op-kinds.json';

/** Display order and wording of each ChangeOp kind. */
export const OP_KINDS = kinds.map((k) => ({
  op: k.op,
  sigil: k.sigil,
  verb: k.verb,
  title: k.title,
  noun: k.noun,
  nounPlural: k.noun_plural,
  icon: k.icon,
  destructive: k.destructive,
}));

const KIND = Object.fromEntries(OP_KINDS.map((k) => [k.op, k]));

export function isDestructiveOp(op) {
  return Boolean(KIND[op?.op]?.destructive);
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
    const kind = KIND[op.op] ?? { op: op.op, title: op.op, noun: 'change', nounPlural: 'changes', icon: 'spark', destructive: false };
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
      return `${n} ${n === 1 ? g.noun : g.nounPlural}`;
    })
    .join(' · ');
}

/**
 * The kind of a change line as the engine writes it (`ChangeOp::render`: sigil, verb padded, what),
 * "~ move   Downloads/a.pdf -> Downloads/Documents/a.pdf" → the OP_KINDS entry of `move`; null when unknown.
 */
export function lineKind(line) {
  const m = /^(\S)\s+(\S+)/.exec(String(line ?? ''));
  return (m && OP_KINDS.find((k) => k.sigil === m[1] && k.verb === m[2])) || null;
}

/** The ops of an event or review (every one the engine sends carries them). */
export function opsOf(x) {
  return Array.isArray(x?.ops) ? x.ops : [];
}
