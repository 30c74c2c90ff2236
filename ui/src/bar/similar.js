// "Similar photos" section of a step approval card: each group of look-alike images side by side, with what the step does to each.
import { h, fmtBytes, basename, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';

/** Largest side of a tile's size box, in px (the group's largest image gets it). */
const BOX = 96;
/** Smallest side, so a tiny image still shows. */
const MIN_SIDE = 6;
/** Groups shown before a "Show N more groups" button. */
const SHOW_FIRST = 3;

/** What happens to a file, as its badge shows it. */
const FATES = {
  keep: { text: 'Keeps', cls: 'ok', icon: 'check' },
  delete: { text: 'Goes to trash', cls: 'danger', icon: 'trash' },
  move: { text: 'Moves', cls: 'info', icon: 'move' },
  link: { text: 'Becomes a link', cls: 'info', icon: 'link' },
  stay: { text: 'Stays', cls: 'muted', icon: null },
};
const FATE_OF_ACTION = { remove: 'delete', move: 'move', hardlink: 'link' };

/** The `groups` param of a remove step: a list, or the scan's whole `{groups}` result. */
function groupsOf(params) {
  const groups = params?.groups;
  if (Array.isArray(groups)) return groups;
  if (Array.isArray(groups?.groups)) return groups.groups;
  return [];
}

/** The groups of similar photos (those with `images`) among a remove step's params; [] when none. */
export function similarGroups(params) {
  return groupsOf(params).filter((g) => g && typeof g === 'object' && Array.isArray(g.images) && g.images.length);
}

/** "./Photos/a.jpg" and "Photos/a.jpg" are one path; an absolute path matches its scope-relative tail. */
function samePath(a, b) {
  const norm = (p) => String(p ?? '').replace(/^\.\//, '').replace(/\/+$/, '');
  const x = norm(a);
  const y = norm(b);
  if (!x || !y) return false;
  if (x === y) return true;
  if (x.startsWith('/') !== y.startsWith('/')) {
    const [abs, rel] = x.startsWith('/') ? [x, y] : [y, x];
    return abs.endsWith(`/${rel}`);
  }
  return false;
}

const list = (v) => (Array.isArray(v) ? v : []);
const has = (paths, path) => list(paths).some((p) => samePath(p, path));

/** What the step did to `path`: from the step's result lists, else from its `action`. */
function fateOf(path, data) {
  if (has(data.kept, path)) return { fate: 'keep' };
  if (has(data.deleted, path)) return { fate: 'delete' };
  const moved = list(data.moved).find((m) => samePath(m?.from ?? m, path));
  if (moved) return { fate: 'move', to: moved?.to };
  const linked = list(data.linked).find((l) => samePath(l?.path ?? l, path));
  if (linked) return { fate: 'link', to: linked?.to };
  // Listed nowhere: an excluded or reference copy, or one the step skipped.
  if (['deleted', 'moved', 'linked'].some((k) => Array.isArray(data[k]))) return { fate: 'stay' };
  // A result without those lists: the others get the step's action, once the kept ones are known.
  return { fate: Array.isArray(data.kept) ? (FATE_OF_ACTION[data.action] ?? 'delete') : null };
}

/** The group's images, then any of its paths without one (no resolution known). */
function tilesOf(group) {
  const images = group.images.filter((i) => i && typeof i.path === 'string');
  const extra = list(group.paths).filter((p) => typeof p === 'string' && !images.some((i) => samePath(i.path, p)));
  return [...images, ...extra.map((path) => ({ path }))];
}

const dims = (img) => (Number(img.width) > 0 && Number(img.height) > 0 ? [Number(img.width), Number(img.height)] : null);

/** A side of `d` scaled for its box. */
const side = (v, scale) => Math.max(MIN_SIDE, Math.round(v * scale));

function tile(img, scale, frameHeight, data) {
  const d = dims(img);
  const { fate, to } = fateOf(img.path, data);
  const f = fate ? FATES[fate] : null;
  const box = d
    ? h('span.similar-box', { 'aria-hidden': 'true', style: { width: `${side(d[0], scale)}px`, height: `${side(d[1], scale)}px` } })
    : h('span.similar-box.unknown', { 'aria-hidden': 'true' }, '?');
  const distance = typeof img.distance === 'number' && img.distance > 0 ? `${img.distance} of 256 bits differ from the first photo` : null;
  return h(
    `li.similar-tile${fate ? `.fate-${fate}` : ''}`,
    { dataset: { path: img.path, ...(fate ? { fate } : {}) } },
    h('div.similar-frame', { title: distance, style: { height: `${frameHeight}px` } }, box),
    h('span.similar-name', { title: img.path }, basename(img.path)),
    h(
      'span.similar-meta',
      h('span.similar-res', d ? `${d[0]}×${d[1]}` : 'size unknown'),
      typeof img.size === 'number' ? h('span.similar-size', fmtBytes(img.size)) : null,
    ),
    f ? h(`span.badge.${f.cls}.similar-fate`, { title: to ? `${f.text}: ${to}` : null }, f.icon ? icon(f.icon) : null, f.text) : null,
  );
}

function groupRow(group, index, data) {
  const tiles = tilesOf(group);
  const known = tiles.map(dims).filter(Boolean);
  // One scale for the group: its largest side gets BOX px, every other side in proportion.
  const scale = known.length ? BOX / Math.max(...known.flat()) : 0;
  // The frames are as tall as the tallest box (a row of landscape photos stays low).
  const tallest = Math.max(0, ...known.map(([, height]) => side(height, scale)));
  const frameHeight = (tiles.length > known.length ? Math.max(tallest, 40) : tallest) + 4;
  const label = `Group ${index + 1}: ${plural(tiles.length, 'photo')}`;
  return h(
    'li.similar-group',
    h('div.similar-group-head', h('span', `Group ${index + 1}`), h('span.faint', plural(tiles.length, 'photo'))),
    h('ul.similar-tiles', { 'aria-label': label }, tiles.map((t) => tile(t, scale, frameHeight, data))),
  );
}

/** The section for a review_step whose `params.groups` has similar photos; null otherwise. */
export function renderSimilarPhotos(review) {
  const groups = similarGroups(review?.params);
  if (!groups.length) return null;
  const data = review.data && typeof review.data === 'object' ? review.data : {};
  const rows = groups.map((g, i) => groupRow(g, i, data));
  const list = h('ol.similar-groups', rows.slice(0, SHOW_FIRST));
  let more = null;
  if (rows.length > SHOW_FIRST) {
    more = h(
      'button.btn.ghost.small.similar-more',
      {
        type: 'button',
        onClick: () => {
          list.append(...rows.slice(SHOW_FIRST));
          more.remove();
        },
      },
      `Show ${plural(rows.length - SHOW_FIRST, 'more group')}`,
    );
  }
  const headingId = `similar-head-${review.step ?? 0}`;
  return h(
    'section.similar-photos',
    { 'aria-labelledby': headingId },
    h('h4.similar-title', { id: headingId }, icon('eye'), 'Similar photos'),
    typeof data.needs_review === 'string' && data.needs_review.trim()
      ? h('p.similar-warning', icon('warning'), h('span', data.needs_review))
      : null,
    list,
    more,
  );
}
