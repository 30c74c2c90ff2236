// Renders a list of ChangeOps grouped by kind (delete / move / create …), destructive groups highlighted.
import { h, fmtBytes, basename, plural } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { groupOps } from '../lib/ops.js';

const SHOW_FIRST = 6;

/** One row of the list: the op's path(s) and size. */
function opRow(op) {
  switch (op.op) {
    case 'move':
    case 'copy': {
      const toDir = op.to.includes('/') ? op.to.slice(0, op.to.lastIndexOf('/')) : '.';
      return h(
        'li.op-item',
        { title: `${op.from} → ${op.to}` },
        h('span.op-path', op.from),
        h('span.op-arrow', '→'),
        h('span.op-dest', `${toDir}/`),
      );
    }
    case 'delete':
    case 'restore':
      return h(
        'li.op-item',
        { title: op.path },
        h('span.op-path', op.path),
        op.kind && op.kind !== 'file' ? h('span.op-kind', op.kind) : null,
        typeof op.size === 'number' ? h('span.op-size', fmtBytes(op.size)) : null,
      );
    case 'hardlink':
      return h('li.op-item', { title: `${op.path} ⇒ ${op.to}` }, h('span.op-path', op.path), h('span.op-arrow', '⇒'), h('span.op-dest', basename(op.to)));
    case 'create_archive':
      return h(
        'li.op-item',
        { title: (op.sources ?? []).join('\n') },
        h('span.op-path', op.target),
        h('span.op-size', `${plural(op.sources?.length ?? 0, 'item')}${op.format ? ` · ${op.format}` : ''}`),
      );
    case 'extract_archive':
      return h('li.op-item', { title: `${op.archive} → ${op.target}` }, h('span.op-path', op.archive), h('span.op-arrow', '→'), h('span.op-dest', `${op.target}/`));
    case 'create_dir':
    case 'remove_dir':
      return h('li.op-item', { title: op.path }, h('span.op-path', `${op.path}/`));
    case 'unlink':
      return h('li.op-item', { title: `${op.path}: its own copy again (was a link to ${op.to})` }, h('span.op-path', op.path), h('span.op-size', fmtBytes(op.size)));
    case 'tag': {
      const list = (tags) => (tags?.length ? tags.join(', ') : 'no tags');
      return h(
        'li.op-item',
        { title: `${op.path}: ${list(op.tags)} (was ${list(op.before)})` },
        h('span.op-path', op.path),
        h('span.op-arrow', '#'),
        h('span.op-dest', list(op.tags)),
      );
    }
    default:
      return h('li.op-item', { title: op.path ?? '' }, h('span.op-path', op.path ?? JSON.stringify(op)));
  }
}

/** The grouped list; each group shows its first rows and a "show all" toggle. */
export function renderOpGroups(ops, { compact = false } = {}) {
  const groups = groupOps(ops);
  if (!groups.length) return h('p.no-changes.muted', 'No changes to files.');
  return h(
    'div.op-groups',
    groups.map((g) => {
      const list = h('ul.op-list');
      const rows = g.items.map(opRow);
      const limit = compact ? 3 : SHOW_FIRST;
      list.append(...rows.slice(0, limit));
      let more = null;
      if (rows.length > limit) {
        more = h(
          'button.btn.ghost.small.op-more',
          {
            type: 'button',
            onClick: () => {
              list.append(...rows.slice(limit));
              more.remove();
            },
          },
          `Show ${rows.length - limit} more`,
        );
      }
      const what = g.op === 'create_dir' ? plural(g.items.length, 'folder') : plural(g.items.length, 'item');
      return h(
        `section.op-group${g.destructive ? '.destructive' : ''}`,
        { dataset: { op: g.op } },
        h(
          'header.op-group-head',
          g.destructive ? icon('warning', 'op-icon') : icon(g.icon, 'op-icon'),
          h('span.op-title', g.title),
          h('span.op-count', what),
          g.bytes ? h('span.op-bytes', fmtBytes(g.bytes)) : null,
        ),
        list,
        more,
      );
    }),
  );
}
