// Small DOM and formatting helpers shared by the windows (element builder, `code` spans, bytes, times, plurals).

/**
 * Builds an element: h('button.primary#go', { onClick, title, dataset: {…} }, 'text', child…).
 * Attribute values of `false`/`null`/`undefined` are skipped; `true` sets an empty attribute.
 */
export function h(spec, attrs = {}, ...children) {
  const tag = /^[a-z0-9-]*/i.exec(spec)[0] || 'div';
  const el = document.createElement(tag);
  const classes = [];
  for (const [, kind, name] of spec.slice(tag.length).matchAll(/([.#])([^.#]+)/g)) {
    if (kind === '#') el.id = name;
    else classes.push(name);
  }
  if (classes.length) el.className = classes.join(' ');
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key === 'class') {
      el.className = [el.className, value].filter(Boolean).join(' ');
    } else if (key === 'style' && typeof value === 'object') {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (key === 'value' || key === 'checked' || key === 'disabled' || key === 'readOnly') {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Removes every child of `el` and appends `children`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** The engine's `path` quoting as code spans: "`a.txt` was deleted permanently" → [code a.txt, " was deleted permanently"]. */
export function ticked(text) {
  return String(text ?? '')
    .split('`')
    .map((part, i) => (i % 2 ? h('span.code', part) : part))
    .filter((part) => part !== '');
}

/** "13 B", "4.2 KB", "1.3 GB". */
export function fmtBytes(n) {
  if (n === null || n === undefined || Number.isNaN(Number(n))) return '';
  let v = Number(n);
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${v} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** "1 file", "3 files". */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** "just now", "5 min ago", "yesterday", or a date. */
export function relTime(at, now = Date.now()) {
  const t = typeof at === 'number' ? at : Date.parse(at);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 172800) return 'yesterday';
  return new Date(t).toLocaleDateString();
}

/** Milliseconds as "0.7 ms" / "32 ms" / "1.2 s". */
export function fmtMs(ms) {
  if (ms === null || ms === undefined) return '';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The last path segment ("Downloads/a.jpg" → "a.jpg"). */
export function basename(path) {
  const parts = String(path).split('/').filter(Boolean);
  return parts.length ? parts[parts.length - 1] : String(path);
}

/**
 * A long absolute path with its middle left out, its first and last folders kept:
 * "/home/u/Projects/clients/acme/inbox" → "/home/…/acme/inbox". Short paths stay as they are.
 */
export function shortPath(path, max = 32) {
  const text = String(path ?? '');
  if (text.length <= max) return text;
  const sep = text.includes('\\') && !text.includes('/') ? '\\' : '/';
  const parts = text.split(sep);
  const head = parts[0] === '' ? `${sep}${parts[1] ?? ''}` : parts[0];
  const tail = parts.slice(-2).join(sep);
  const short = `${head}${sep}…${sep}${tail}`;
  return parts.length > 4 && short.length < text.length ? short : text;
}

/** Debounces `fn` by `ms`. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** True when the key event comes from a text field (where letters, digits and arrows edit text). */
export function isTextField(target) {
  if (!target || !(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  if (target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  if (target.tagName !== 'INPUT') return false;
  return !['button', 'checkbox', 'radio', 'submit', 'range', 'color'].includes(target.type);
}

/** Shows a short-lived message in a `.toast` element at the bottom of the window. */
export function toast(text, kind = 'info', ms = 3500) {
  let host = document.querySelector('.toasts');
  if (!host) {
    host = h('div.toasts', { role: 'status', 'aria-live': 'polite' });
    document.body.append(host);
  }
  const el = h(`div.toast.${kind}`, text);
  host.append(el);
  setTimeout(() => el.remove(), ms);
  return el;
}
