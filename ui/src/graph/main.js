// Graph window: the folder as Cytoscape compound nodes (positions from Rust), live diff colours, side panel.
import '../styles/base.css';
import './graph.css';
import cytoscape from 'cytoscape';
import { api, on, tell, EVENTS } from '../ipc.js';
import { h, replace, fmtBytes, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { opPaths, opsOf } from '../lib/ops.js';
import { loadSkills, skillColor } from '../lib/skills.js';
import { FAMILIES, STATUS_COLORS, stylesheet } from './style.js';
import { applyView, ANIMATE_MS } from './sync.js';
import { Pipeline } from './pipeline.js';
import { ActionHistory } from './actions.js';

const LIMIT = 60;
/** Fitting never zooms in past this (labels stay at their designed size), and keeps this margin. */
const FIT_MAX_ZOOM = 1;
const FIT_PADDING = 30;
const expanded = new Set(['.']);
let skills = [];
let activeStep = null; // { step, ops } of the latest graph_delta

// ---------------------------------------------------------------- layout

const searchInput = h('input.field.search-box', { type: 'search', placeholder: 'Find a visible node…  ( / )', 'aria-label': 'Find node', spellcheck: 'false' });
const searchCount = h('span.search-count.faint');
const rootEl = h('span.g-root.code');
const totalsEl = h('span.g-totals.faint');
const cyEl = h('div#cy', { 'aria-label': 'Folder graph' });
const tooltip = h('div.g-tooltip', { hidden: true });
const overlay = h('div.g-overlay', { hidden: true });
const infoEl = h('section.side-section.node-info');
const pipeline = new Pipeline({ onUndo: undoInBar });
const history = new ActionHistory((step) => pipeline.skillOf(step), (step) => pipeline.toolOf(step));

function toolButton(name, title, onClick) {
  return h('button.btn.ghost.icon-btn', { type: 'button', title, 'aria-label': title, onClick }, icon(name));
}

const legend = h(
  'div.legend',
  FAMILIES.map((f) => h('span.legend-item', h('span.swatch', { style: { background: f.color } }), f.label)),
  h('span.legend-sep'),
  Object.entries(STATUS_COLORS).map(([k, c]) => h(`span.legend-item.status-${k}`, h('span.swatch.ring', { style: { 'border-color': c } }), k)),
);

document.getElementById('app').replaceWith(
  h(
    'div.gwin',
    h(
      'header.g-toolbar',
      h('div.g-title', icon('graph'), h('strong', 'Graph'), rootEl, totalsEl),
      h('div.g-search', icon('search', 'faint'), searchInput, searchCount),
      h(
        'div.g-zoom',
        toolButton('fit', 'Fit to window', () => fitView({ animate: true })),
        toolButton('zoomIn', 'Zoom in', () => zoomBy(1.25)),
        toolButton('zoomOut', 'Zoom out', () => zoomBy(0.8)),
        toolButton('refresh', 'Reload the view', () => refresh()),
      ),
    ),
    h('div.g-body', h('div.g-canvas', h('div.cy-wrap', cyEl, tooltip, overlay), legend), h('aside.g-side', h('div.side-scroll', pipeline.el, history.el), infoEl)),
  ),
);

// ---------------------------------------------------------------- cytoscape

const cy = cytoscape({
  container: cyEl,
  elements: [],
  style: stylesheet,
  layout: { name: 'preset' },
  minZoom: 0.05,
  maxZoom: 3,
  boxSelectionEnabled: false,
  autoungrabify: true,
  selectionType: 'single',
  textureOnViewport: true,
  hideEdgesOnViewport: true,
  motionBlur: false,
  pixelRatio: 'auto',
});
window.cy = cy;

function zoomBy(f) {
  const z = cy.zoom() * f;
  cy.animate({ zoom: { level: z, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } } }, { duration: 150 });
}

// ---------------------------------------------------------------- viewport

// The view follows the graph (fitted after every structural update) until the person pans or zooms
// by hand; then it stays where they put it until they press "Fit to window".
let autoFit = true;
let ownMove = false; // true while the window itself moves the viewport (a fit, or its animation)
let fitTimer = null;

cy.on('viewport', () => {
  tooltip.hidden = true;
  if (!ownMove) autoFit = false;
});

/** Fits everything into the window, never zooming in beyond FIT_MAX_ZOOM; centres what is smaller. */
function fitView({ animate = false } = {}) {
  clearTimeout(fitTimer);
  cy.scratch('fitPending', false); // (read by the UI tests)
  const eles = cy.elements();
  const w = cy.width();
  const ht = cy.height();
  if (eles.empty() || w < 40 || ht < 40) return false; // hidden or not laid out yet: the resize observer fits later
  const bb = eles.boundingBox();
  const fitZoom = Math.min((w - 2 * FIT_PADDING) / Math.max(bb.w, 1), (ht - 2 * FIT_PADDING) / Math.max(bb.h, 1));
  const zoom = Math.max(cy.minZoom(), Math.min(FIT_MAX_ZOOM, fitZoom));
  const pan = { x: (w - zoom * (bb.x1 + bb.x2)) / 2, y: (ht - zoom * (bb.y1 + bb.y2)) / 2 };
  cy.stop(true, false); // a running fit (or zoom) animation ends where it is
  autoFit = true;
  ownMove = true;
  if (!animate) {
    try {
      cy.viewport({ zoom, pan });
    } finally {
      ownMove = false;
    }
    return true;
  }
  const done = () => {
    ownMove = false;
    autoFit = true;
  };
  cy.animation({ zoom, pan }, { duration: 200 }).play().promise('completed').then(done, done);
  return true;
}

/** Re-fits once the leaves have glided to their new positions (when the person has not moved the view). */
function scheduleFit(stats) {
  if (!autoFit) return;
  clearTimeout(fitTimer);
  if (!stats.moved) {
    fitView({ animate: true });
    return;
  }
  cy.scratch('fitPending', true);
  let waits = 0;
  const later = () => {
    if (!autoFit) {
      cy.scratch('fitPending', false);
      return;
    }
    // A busy machine can lag behind the timer: fit on the final positions, not halfway.
    if (waits++ < 20 && cy.nodes().some((n) => n.animated())) fitTimer = setTimeout(later, 50);
    else fitView({ animate: true });
  };
  fitTimer = setTimeout(later, ANIMATE_MS + 40);
}

// The window is created hidden (0×0) and can be resized: keep the fit while it is automatic.
new ResizeObserver(() => {
  cy.resize();
  if (autoFit) fitView();
}).observe(cyEl);

// ---------------------------------------------------------------- view

let inflight = null;
let again = false;

/** Re-requests the view; overlapping calls coalesce into one more request. */
function refresh() {
  if (inflight) {
    again = true;
    return inflight;
  }
  inflight = (async () => {
    do {
      again = false;
      try {
        const view = await api.graphView([...expanded], LIMIT);
        // Folders the engine opened (they hold pending changes) stay open after the commit.
        for (const n of view.nodes ?? []) if (n.kind === 'dir' && n.expanded && n.status !== 'deleted') expanded.add(n.id);
        overlay.hidden = true;
        render(view);
      } catch (err) {
        replace(overlay, icon('warning'), h('span', `Graph unavailable — ${err.code}: ${err.message}`));
        overlay.hidden = false;
      }
    } while (again);
  })().finally(() => {
    inflight = null;
  });
  return inflight;
}

function render(view) {
  const first = cy.nodes().empty();
  const stats = applyView(cy, view);
  const t = view.total ?? {};
  rootEl.textContent = view.root_path ?? '';
  totalsEl.textContent = [t.files !== undefined ? `${t.files.toLocaleString()} files` : '', t.dirs !== undefined ? `${t.dirs.toLocaleString()} folders` : '', t.bytes !== undefined ? fmtBytes(t.bytes) : '']
    .filter(Boolean)
    .join(' · ');
  applyHighlight();
  // A new folder shown, folders opened or closed, ghosts gone after the commit: fit again.
  if (first) fitView();
  else if (stats.added || stats.removed) scheduleFit(stats);
  const sel = cy.$(':selected');
  showInfo(sel.nonempty() ? sel[0] : null);
  if (searchInput.value) runSearch(false);
}

/** Marks the nodes the latest step touched, in that step's skill colour. */
function applyHighlight() {
  cy.batch(() => {
    cy.nodes('.touched').removeClass('touched');
    if (!activeStep?.ops?.length) return;
    const color = skillColor(skills, pipeline.skillOf(activeStep.step));
    const paths = new Set(activeStep.ops.flatMap(opPaths));
    cy.nodes().forEach((n) => {
      if (paths.has(n.id()) || (n.data('from') && paths.has(n.data('from')))) {
        n.data('hl', color);
        n.addClass('touched');
      }
    });
  });
}

function expand(id) {
  expanded.add(id);
  refresh();
}

function collapse(id) {
  if (id === '.') return;
  expanded.delete(id);
  // A collapsed folder hides its subfolders too; forget them so they come back closed.
  for (const e of [...expanded]) if (e.startsWith(`${id}/`)) expanded.delete(e);
  cy.$id(id).unselect();
  refresh();
}

// ---------------------------------------------------------------- interaction

cy.on('tap', 'node', (evt) => {
  const n = evt.target;
  if (n.data('kind') === 'dir') {
    if (!n.isParent() && !n.data('expanded')) {
      expand(n.id());
      return;
    }
    if (n.isParent()) {
      // The label sits above the compound's body: a tap there is a tap on the header.
      const body = n.boundingBox({ includeLabels: false });
      if (evt.position.y < body.y1 + 4) {
        collapse(n.id());
        return;
      }
    }
  }
  showInfo(n);
});

cy.on('dbltap', 'node', (evt) => {
  const n = evt.target;
  if (n.data('kind') === 'dir' && (n.isParent() || n.data('expanded'))) collapse(n.id());
});

cy.on('tap', (evt) => {
  if (evt.target === cy) showInfo(null);
});

cy.on('mouseover', 'node', (evt) => {
  const n = evt.target;
  const status = n.data('status');
  replace(
    tooltip,
    h('div.tt-path.code', n.id()),
    h(
      'div.tt-meta',
      n.data('kind'),
      n.data('size') !== null && n.data('kind') !== 'dir' ? ` · ${fmtBytes(n.data('size'))}` : '',
      status && status !== 'unchanged' ? h(`span.tt-status.status-${status}`, ` · ${status}`) : null,
    ),
    n.data('from') ? h('div.tt-from', 'from ', h('span.code', n.data('from'))) : null,
  );
  const p = n.renderedPosition();
  tooltip.style.left = `${Math.round(p.x + 14)}px`;
  tooltip.style.top = `${Math.round(p.y + 14)}px`;
  tooltip.hidden = false;
});
cy.on('mouseout', 'node', () => {
  tooltip.hidden = true;
});

function infoRow(label, value) {
  return value === null || value === undefined || value === '' ? null : h('div.info-row', h('span.info-label', label), h('span.info-value', value));
}

function showInfo(n) {
  if (!n || n.removed?.()) {
    replace(infoEl, h('header.side-head', h('h2', 'Node')), h('p.faint.side-empty', 'Select a file or folder. Click a closed folder to open it; click an open folder’s title (or double-click it) to close it.'));
    return;
  }
  n.select();
  const d = n.data();
  const isDir = d.kind === 'dir';
  replace(
    infoEl,
    h('header.side-head', h('h2', { title: d.id }, d.name ?? d.id), d.status !== 'unchanged' ? h(`span.badge.status-badge.status-${d.status}`, d.status) : null),
    h(
      'div.info-rows',
      infoRow('Path', h('span.code.info-path', d.id)),
      infoRow('Kind', d.kind === 'more' ? 'more entries' : d.kind + (d.ext ? ` · .${d.ext}` : '')),
      infoRow('Size', d.size !== null && d.kind !== 'more' ? fmtBytes(d.size) : null),
      infoRow('Files', isDir && d.files !== null ? d.files.toLocaleString() : d.kind === 'more' ? String(d.count ?? '') : null),
      infoRow('Status', d.status),
      infoRow('From', d.from ? h('span.code.info-from', d.from) : null),
    ),
    isDir && d.id !== '.'
      ? h(
          'div.info-actions',
          n.isParent() || d.expanded
            ? h('button.btn.small', { type: 'button', onClick: () => collapse(d.id) }, 'Collapse folder')
            : h('button.btn.small', { type: 'button', onClick: () => expand(d.id) }, 'Expand folder'),
        )
      : null,
  );
}

// ---------------------------------------------------------------- search

let matches = [];
let matchIndex = -1;

function runSearch(advance) {
  const q = searchInput.value.trim().toLowerCase();
  cy.nodes('.match').removeClass('match');
  if (!q) {
    matches = [];
    searchCount.textContent = '';
    return;
  }
  const found = cy.nodes().filter((n) => String(n.data('name') ?? '').toLowerCase().includes(q) || n.id().toLowerCase().endsWith(q));
  const same = found.length === matches.length && found.every((n, i) => matches[i]?.same(n));
  matches = found.toArray();
  found.addClass('match');
  if (!matches.length) {
    matchIndex = -1;
    searchCount.textContent = 'no match';
    return;
  }
  matchIndex = same && advance ? (matchIndex + 1) % matches.length : same ? Math.max(0, matchIndex) : 0;
  searchCount.textContent = `${matchIndex + 1}/${matches.length}`;
  if (advance || !same) {
    const n = matches[matchIndex];
    cy.$(':selected').unselect();
    showInfo(n);
    cy.animate({ center: { eles: n }, zoom: Math.max(cy.zoom(), 1) }, { duration: 200 });
  }
}

searchInput.addEventListener('input', () => runSearch(false));
searchInput.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    runSearch(true);
  } else if (e.key === 'Escape') {
    searchInput.value = '';
    runSearch(false);
    cyEl.focus();
  }
});
document.addEventListener('keydown', (e) => {
  const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
  if ((e.key === '/' && !typing) || ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f')) {
    e.preventDefault();
    searchInput.focus();
    searchInput.select();
  }
});

// ---------------------------------------------------------------- events

/** "Undo this run": the bar runs the undo (its diff review is a question card there), so show it and ask it to. */
async function undoInBar(runId, request) {
  try {
    await api.openWindow('bar');
    await tell('bar', EVENTS.undoRequested, { run_id: runId, request });
  } catch (err) {
    toast(`Undo could not start: ${err.code}: ${err.message}`, 'error', 5000);
  }
}

function onPipeline(payload) {
  const ev = payload?.event;
  if (!ev) return;
  pipeline.onEvent(ev, payload.run_id ?? null);
  history.onEvent(ev, payload.run_id ?? null);
  switch (ev.event) {
    case 'request':
      activeStep = null;
      applyHighlight();
      break;
    case 'graph_delta':
      activeStep = { step: ev.step, ops: opsOf(ev) };
      refresh();
      break;
    case 'rolled_back':
    case 'committed':
      activeStep = null;
      refresh();
      break;
    default:
      break;
  }
}

async function start() {
  showInfo(null);
  skills = await loadSkills();
  pipeline.skills = skills;
  history.skills = skills;
  await on(EVENTS.pipeline, onPipeline);
  await on(EVENTS.graphChanged, (payload) => {
    // Another folder (the working one, or an inbox item's): start with all of it in view.
    if (payload?.reason === 'root' || payload?.reason === 'inbox') autoFit = true;
    refresh();
  });
  await on(EVENTS.skillsChanged, async () => {
    skills = await loadSkills(true);
    pipeline.skills = skills;
    history.skills = skills;
    // New colours, icons, labels and destructive flags.
    pipeline.render();
    history.render();
  });
  await refresh();
}

start().catch((err) => toast(`Graph failed to start: ${err.message ?? err}`, 'error'));
