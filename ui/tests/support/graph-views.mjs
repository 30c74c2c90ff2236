// graph_view() fixtures: a home folder before the seed run, with Downloads opened (a few or many files), and after steps 2–3 (diff statuses).
// Positions imitate the Rust layout: leaves in wrapping rows, compound folders as blocks around their children.

const LEAF_W = 96;
const LEAF_H = 66;
const PAD = 24;
const TITLE = 18;
const MAX_ROW = 620;

/** Lays out `tree` (nested {id,label,kind,children?…}) and returns the flat node list of the contract. */
function layout(tree) {
  const out = [];
  function size(n) {
    if (!n.children) return { w: LEAF_W, h: LEAF_H };
    let x = 0;
    let y = 0;
    let rowH = 0;
    let w = 0;
    n._place = [];
    for (const c of n.children) {
      const s = size(c);
      if (x > 0 && x + s.w > MAX_ROW) {
        x = 0;
        y += rowH + 12;
        rowH = 0;
      }
      n._place.push([c, x, y, s]);
      x += s.w + 12;
      rowH = Math.max(rowH, s.h);
      w = Math.max(w, x - 12);
    }
    n._size = { w: w + PAD * 2, h: y + rowH + PAD * 2 + TITLE };
    return n._size;
  }
  function place(n, parent, ox, oy) {
    const { children, _place, _size, ...rest } = n;
    const node = { parent, ext: null, size: 0, files: 0, expanded: false, status: 'unchanged', from: null, ...rest };
    if (!children) {
      node.x = ox + LEAF_W / 2;
      node.y = oy + LEAF_H / 2 - 10;
      out.push(node);
      return;
    }
    node.expanded = true;
    node.x = ox + _size.w / 2;
    node.y = oy + _size.h / 2;
    out.push(node);
    for (const [c, x, y] of _place) place(c, n.id, ox + PAD + x, oy + PAD + TITLE + y);
  }
  size(tree);
  place(tree, null, 0, 0);
  return out;
}

const file = (id, ext, size, extra = {}) => ({ id, label: id.split('/').pop(), kind: 'file', ext, size, ...extra });
const dir = (id, files, extra = {}) => ({ id, label: id.split('/').pop(), kind: 'dir', files, size: files * 2048, ...extra });

const TOTAL = { files: 612, dirs: 41, bytes: 1_482_113_024 };

function home(downloads) {
  return {
    id: '.', label: 'u', kind: 'dir', files: 612, size: TOTAL.bytes,
    children: [dir('Documents', 120), downloads, dir('Music', 56), dir('Pictures', 340), dir('Projects', 88), file('notes.txt', 'txt', 2100), file('todo.md', 'md', 430)],
  };
}

export function viewBefore() {
  return { root_path: '/home/u', total: TOTAL, nodes: layout(home(dir('Downloads', 249))) };
}

export function viewDownloads() {
  const downloads = {
    ...dir('Downloads', 249),
    children: [
      file('Downloads/beach (1).jpg', 'jpg', 13),
      file('Downloads/beach.jpg', 'jpg', 13),
      file('Downloads/export.csv', 'csv', 20),
      file('Downloads/report_final.pdf', 'pdf', 20),
      file('Downloads/report_v1.pdf', 'pdf', 20),
      file('Downloads/song.mp3', 'mp3', 31),
      file('Downloads/setup.dmg', 'dmg', 48_000_000),
      dir('Downloads/old', 241),
    ],
  };
  return { root_path: '/home/u', total: TOTAL, nodes: layout(home(downloads)) };
}

export function viewAfter() {
  const downloads = {
    ...dir('Downloads', 249, { status: 'changed' }),
    children: [
      file('Downloads/beach.jpg', 'jpg', 13, { status: 'deleted' }),
      file('Downloads/report_v1.pdf', 'pdf', 20, { status: 'deleted' }),
      file('Downloads/setup.dmg', 'dmg', 48_000_000),
      { ...dir('Downloads/Audio', 1, { status: 'added' }), children: [file('Downloads/Audio/song.mp3', 'mp3', 31, { status: 'moved', from: 'Downloads/song.mp3' })] },
      { ...dir('Downloads/Data', 1, { status: 'added' }), children: [file('Downloads/Data/export.csv', 'csv', 20, { status: 'moved', from: 'Downloads/export.csv' })] },
      {
        ...dir('Downloads/Documents', 1, { status: 'added' }),
        children: [file('Downloads/Documents/report_final.pdf', 'pdf', 20, { status: 'moved', from: 'Downloads/report_final.pdf' })],
      },
      {
        ...dir('Downloads/Images', 1, { status: 'added' }),
        children: [file('Downloads/Images/beach (1).jpg', 'jpg', 13, { status: 'moved', from: 'Downloads/beach (1).jpg' })],
      },
      {
        ...dir('Downloads/old', 241, { status: 'changed' }),
        children: [
          file('Downloads/old/beach.jpg', 'jpg', 13, { status: 'deleted' }),
          { id: 'Downloads/old/+more', label: '+240 files', kind: 'more', count: 240 },
        ],
      },
    ],
  };
  return { root_path: '/home/u', total: TOTAL, nodes: layout(home(downloads)) };
}

/** Downloads opened with `n` files: a large update (many nodes added) compared with viewBefore(). */
export function viewLarge(n = 48) {
  const names = Array.from({ length: n }, (_, i) => file(`Downloads/photo-${String(i + 1).padStart(3, '0')}.jpg`, 'jpg', 1000 + i));
  const downloads = { ...dir('Downloads', 249), children: names };
  return { root_path: '/home/u', total: TOTAL, nodes: layout(home(downloads)) };
}
