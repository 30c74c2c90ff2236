// Applies a graph_view() answer to Cytoscape incrementally: add/remove/update by id, keep the viewport, animate moves.
import { familyOf } from './style.js';

/** How long a leaf glides to its new position. */
export const ANIMATE_MS = 260;

function depth(id) {
  return id === '.' ? 0 : id.split('/').length;
}

/** Element data for a view node (everything except `parent`, which Cytoscape treats specially). */
export function nodeData(n) {
  const fam = n.kind === 'file' || n.kind === 'symlink' ? familyOf(n.ext) : null;
  return {
    id: n.id,
    label: n.kind === 'dir' && !n.expanded && n.files ? `${n.label} · ${n.files}` : n.label ?? n.id,
    name: n.label ?? n.id,
    kind: n.kind,
    ext: n.ext ?? null,
    size: n.size ?? null,
    files: n.files ?? null,
    count: n.count ?? (n.kind === 'more' ? n.files ?? null : null),
    expanded: Boolean(n.expanded),
    status: n.status ?? 'unchanged',
    from: n.from ?? null,
    family: fam?.id ?? null,
    color: fam?.color ?? '#9CA3AF',
  };
}

export function nodeClasses(n) {
  const cls = [`kind-${n.kind}`];
  if (n.status && n.status !== 'unchanged') cls.push(n.status);
  if (n.kind === 'dir') cls.push(n.expanded ? 'expanded' : 'collapsed');
  return cls.join(' ');
}

/**
 * Makes `cy` show exactly `view.nodes`. Returns { added, removed, updated, moved } counts.
 * The viewport is left alone; leaf nodes whose position changed glide to the new one.
 */
export function applyView(cy, view) {
  const nodes = [...(view?.nodes ?? [])].sort((a, b) => depth(a.id) - depth(b.id));
  const wanted = new Map(nodes.map((n) => [n.id, n]));
  const moves = [];
  const stats = { added: 0, removed: 0, updated: 0, moved: 0 };
  cy.batch(() => {
    const gone = cy.nodes().filter((el) => !wanted.has(el.id()));
    stats.removed = gone.length;
    cy.remove(gone);
    for (const n of nodes) {
      const parent = n.parent && wanted.has(n.parent) ? n.parent : null;
      let el = cy.getElementById(n.id);
      const position = { x: Number(n.x) || 0, y: Number(n.y) || 0 };
      if (el.empty()) {
        cy.add({ group: 'nodes', data: { ...nodeData(n), ...(parent ? { parent } : {}) }, position, classes: nodeClasses(n) });
        stats.added += 1;
        continue;
      }
      if ((el.data('parent') ?? null) !== parent) {
        el = el.move({ parent });
      }
      el.data(nodeData(n));
      el.classes(nodeClasses(n));
      stats.updated += 1;
      moves.push([el, position]);
    }
  });
  // Compound nodes take their children's bounds; only leaves have their own position.
  for (const [el, position] of moves) {
    if (el.removed() || el.isParent()) continue;
    const p = el.position();
    if (Math.abs(p.x - position.x) < 0.5 && Math.abs(p.y - position.y) < 0.5) continue;
    el.stop(true, true);
    stats.moved += 1;
    el.animate({ position }, { duration: ANIMATE_MS, easing: 'ease-in-out-cubic' });
  }
  return stats;
}
