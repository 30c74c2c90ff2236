// Cytoscape look of the folder graph: file colours by type family, diff-status styling, compound folders.

/** Extension families and their fill colours (also used by the legend). */
export const FAMILIES = [
  { id: 'images', label: 'Images', color: '#F472B6', exts: 'jpg jpeg png gif webp heic heif bmp svg tif tiff raw cr2 nef ico avif' },
  { id: 'documents', label: 'Documents', color: '#C4B5FD', exts: 'pdf doc docx odt rtf txt md pages epub tex ppt pptx odp key' },
  { id: 'data', label: 'Data', color: '#5EEAD4', exts: 'csv tsv xls xlsx ods json xml yaml yml sqlite db parquet numbers' },
  { id: 'audio', label: 'Audio', color: '#FDBA74', exts: 'mp3 wav flac aac ogg m4a opus aiff wma' },
  { id: 'video', label: 'Video', color: '#A5B4FC', exts: 'mp4 mov mkv avi webm wmv m4v flv' },
  { id: 'archives', label: 'Archives', color: '#D6A76C', exts: 'zip tar gz tgz bz2 xz 7z rar dmg iso deb rpm' },
  { id: 'code', label: 'Code', color: '#67E8F9', exts: 'js mjs ts jsx tsx py rs go java c h cpp hpp rb php sh html css scss toml lock' },
  { id: 'other', label: 'Other', color: '#9CA3AF', exts: '' },
];

const BY_EXT = new Map();
for (const f of FAMILIES) for (const e of f.exts.split(' ').filter(Boolean)) BY_EXT.set(e, f);

export function familyOf(ext) {
  return BY_EXT.get(String(ext ?? '').toLowerCase()) ?? FAMILIES[FAMILIES.length - 1];
}

export const STATUS_COLORS = {
  added: '#4ADE80',
  moved: '#60A5FA',
  deleted: '#F87171',
  changed: '#FBBF24',
};

/** Font sizes at zoom 1 (labels are hidden below `min-zoomed-font-size` on screen). */
export const LABEL_PX = { file: 11, folder: 11, title: 13, more: 10 };

/** A folder glyph (a box with a tab on its top left) as a Cytoscape polygon in the -1…1 node box. */
const FOLDER_SHAPE = [-1, -1, -0.22, -1, -0.04, -0.72, 1, -0.72, 1, 1, -1, 1];

export const stylesheet = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      color: '#cfd5e3',
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, "Noto Sans", sans-serif',
      'font-size': LABEL_PX.file,
      'min-zoomed-font-size': 6,
      'text-valign': 'bottom',
      'text-halign': 'center',
      'text-margin-y': 4,
      'text-wrap': 'ellipsis',
      'text-max-width': 114,
      'text-outline-color': '#121318',
      'text-outline-width': 2,
      'text-outline-opacity': 0.8,
      'border-width': 0,
      'transition-property': 'border-color, underlay-opacity',
      'transition-duration': 200,
    },
  },
  {
    selector: 'node[kind="file"], node[kind="symlink"]',
    style: {
      shape: 'round-rectangle',
      width: 20,
      height: 24,
      'background-color': 'data(color)',
      'border-width': 1,
      'border-color': 'rgba(0,0,0,0.35)',
    },
  },
  // A closed folder: a folder glyph, its name and "· N files" in a brighter, bolder label.
  {
    selector: 'node[kind="dir"]',
    style: {
      shape: 'polygon',
      'shape-polygon-points': FOLDER_SHAPE,
      width: 36,
      height: 27,
      'background-color': '#56657f',
      'background-opacity': 1,
      'border-width': 1,
      'border-color': '#8c9ab8',
      'font-size': LABEL_PX.folder,
      'font-weight': 600,
      'text-max-width': 118,
      color: '#dde3ef',
    },
  },
  {
    selector: 'node[kind="dir"][?expanded]:childless',
    style: { 'background-color': '#2b3140', 'border-style': 'dashed' },
  },
  // An open folder: a translucent box around its children, its name as a tab above it.
  {
    selector: ':parent',
    style: {
      shape: 'round-rectangle',
      'background-color': '#1f2433',
      'background-opacity': 0.5,
      'border-width': 1,
      'border-color': '#3d4660',
      padding: 16,
      'text-valign': 'top',
      'text-halign': 'center',
      'text-margin-y': -6,
      'font-size': LABEL_PX.title,
      'font-weight': 600,
      color: '#c9d0df',
      'text-max-width': 240,
      'text-outline-width': 0,
      'text-background-color': '#272d3d',
      'text-background-opacity': 1,
      'text-background-padding': 3,
      'text-background-shape': 'round-rectangle',
      'text-border-color': '#3d4660',
      'text-border-width': 1,
      'text-border-opacity': 1,
      'text-events': 'yes',
      'min-zoomed-font-size': 5,
    },
  },
  {
    selector: 'node[kind="more"]',
    style: {
      shape: 'round-rectangle',
      width: 68,
      height: 20,
      'background-color': '#262b38',
      'border-width': 1,
      'border-style': 'dashed',
      'border-color': '#5b6478',
      'text-valign': 'center',
      'text-margin-y': 0,
      'font-size': LABEL_PX.more,
      color: '#9aa3b8',
      'text-outline-width': 0,
    },
  },
  // Diff status
  { selector: 'node.added', style: { 'border-width': 3, 'border-color': STATUS_COLORS.added } },
  { selector: ':parent.added', style: { 'border-width': 2, 'border-style': 'dashed', 'border-color': STATUS_COLORS.added } },
  { selector: 'node.moved', style: { 'border-width': 3, 'border-color': STATUS_COLORS.moved } },
  {
    selector: 'node.deleted',
    style: {
      opacity: 0.45,
      'background-color': STATUS_COLORS.deleted,
      'background-opacity': 0.3,
      'border-width': 2,
      'border-style': 'dashed',
      'border-color': STATUS_COLORS.deleted,
      color: '#fca5a5',
    },
  },
  { selector: 'node.changed', style: { 'border-width': 2, 'border-color': STATUS_COLORS.changed } },
  // The active step's nodes, in the skill's colour
  {
    selector: 'node.touched',
    style: {
      'underlay-color': 'data(hl)',
      'underlay-opacity': 0.45,
      'underlay-padding': 7,
      'underlay-shape': 'round-rectangle',
    },
  },
  { selector: ':parent.touched', style: { 'underlay-opacity': 0.14, 'underlay-padding': 4 } },
  // Search hits and selection
  { selector: 'node.match', style: { 'overlay-color': '#fde047', 'overlay-opacity': 0.25, 'overlay-padding': 5 } },
  { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#ffffff', 'border-style': 'solid', opacity: 1 } },
  { selector: ':parent:selected', style: { 'border-width': 2, 'border-color': '#8b9cff' } },
];
