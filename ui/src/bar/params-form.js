// The "Edit params" form of an approval card: one field per param, typed from the original value, validated on read.
import { h } from '../lib/dom.js';

function kindOf(value) {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

function fieldFor(key, value, kind, id) {
  switch (kind) {
    case 'string':
      return h('input.field', { id, type: 'text', value, spellcheck: 'false', autocomplete: 'off' });
    case 'number':
      return h('input.field.num', { id, type: 'text', inputmode: 'decimal', value: String(value) });
    case 'boolean':
      return h(
        'select.field',
        { id },
        h('option', { value: 'true', selected: value === true }, 'true'),
        h('option', { value: 'false', selected: value === false }, 'false'),
      );
    default: {
      const text = JSON.stringify(value, null, 2) ?? 'null';
      const lines = text.split('\n').length;
      return h('textarea.field', { id, rows: Math.min(8, Math.max(2, lines)), spellcheck: 'false' }, text);
    }
  }
}

function parseField(kind, el) {
  const raw = el.value;
  switch (kind) {
    case 'string':
      return { value: raw };
    case 'number': {
      const n = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(n)) return { error: 'must be a number' };
      return { value: n };
    }
    case 'boolean':
      return { value: raw === 'true' };
    default:
      try {
        return { value: JSON.parse(raw) };
      } catch (err) {
        return { error: `not valid JSON (${String(err.message).replace(/^JSON\.parse: /, '')})` };
      }
  }
}

let seq = 0;

/**
 * Builds the form for `params`. read() → { ok, params, errors } and marks invalid fields;
 * `onSubmit` runs on Enter in a single-line field.
 */
export function paramsForm(params, { onSubmit } = {}) {
  const rows = [];
  const form = h('form.params-form', {
    novalidate: true,
    onSubmit: (e) => {
      e.preventDefault();
      onSubmit?.();
    },
  });
  for (const [key, value] of Object.entries(params ?? {})) {
    const kind = kindOf(value);
    const id = `param-${++seq}`;
    const input = fieldFor(key, value, kind, id);
    input.dataset.param = key;
    const error = h('div.param-error', { role: 'alert' });
    rows.push({ key, kind, input, error });
    form.append(
      h(
        'div.param-row',
        h('label.param-key', { for: id }, key, h('span.param-type', kind === 'json' ? (Array.isArray(value) ? 'list' : 'json') : kind)),
        h('div.param-input', input, error),
      ),
    );
  }
  if (!rows.length) form.append(h('p.muted', 'This step has no parameters.'));
  // A hidden submit button makes Enter in a text input submit the form.
  form.append(h('button.sr-only', { type: 'submit', tabindex: '-1' }, 'Apply'));

  function read() {
    const out = {};
    const errors = {};
    for (const row of rows) {
      const res = parseField(row.kind, row.input);
      row.input.classList.toggle('invalid', Boolean(res.error));
      row.input.setAttribute('aria-invalid', res.error ? 'true' : 'false');
      row.error.textContent = res.error ? `${row.key}: ${res.error}` : '';
      if (res.error) errors[row.key] = res.error;
      else out[row.key] = res.value;
    }
    const ok = Object.keys(errors).length === 0;
    if (!ok) rows.find((r) => errors[r.key])?.input.focus();
    return { ok, params: out, errors };
  }

  return {
    el: form,
    read,
    focusFirst: () => rows[0]?.input.focus(),
  };
}
