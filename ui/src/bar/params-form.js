// The "Edit params" form of an approval card: one field per param, typed from the original value, validated on read;
// the tool's other params (unset, their defaults apply) follow, blank, typed from their declaration.
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

/** A blank field for a declared param the step leaves out: a choice list, true/false, or text. */
function unsetField(spec, id) {
  const options = spec.choices?.length ? spec.choices : spec.type === 'bool' ? ['true', 'false'] : null;
  if (options) {
    return h(
      'select.field',
      { id },
      h('option', { value: '', selected: true }, '(default)'),
      ...options.map((c) => h('option', { value: c }, c)),
    );
  }
  return h('input.field', { id, type: 'text', value: '', placeholder: '(default)', spellcheck: 'false', autocomplete: 'off' });
}

/** An unset field's value by its declared type; blank means "leave it out". */
function parseUnset(spec, el) {
  const raw = el.value.trim();
  if (raw === '') return { skip: true };
  switch (spec.type) {
    case 'bool':
      return { value: raw === 'true' };
    case 'int': {
      const n = Number(raw);
      return Number.isInteger(n) ? { value: n } : { error: 'must be a whole number' };
    }
    case 'paths':
    case 'any':
      // A list or object is JSON; anything else is taken as written.
      if (/^[[{"]/.test(raw)) {
        try {
          return { value: JSON.parse(raw) };
        } catch (err) {
          return { error: `not valid JSON (${String(err.message).replace(/^JSON\.parse: /, '')})` };
        }
      }
      return { value: raw };
    default:
      return { value: raw };
  }
}

/**
 * Builds the form for `params`, then blank fields for `unset` (the tool's declared params the
 * step leaves out). read() → { ok, params, errors } and marks invalid fields; a blank unset field
 * stays out. `onSubmit` runs on Enter in a single-line field.
 */
export function paramsForm(params, { onSubmit, unset = [] } = {}) {
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
  if (unset.length) {
    form.append(h('p.param-unset-head.muted', 'Not set (the tool’s defaults apply)'));
  }
  for (const spec of unset) {
    const id = `param-${++seq}`;
    const input = unsetField(spec, id);
    input.dataset.param = spec.name;
    input.dataset.unset = '';
    const error = h('div.param-error', { role: 'alert' });
    rows.push({ key: spec.name, spec, input, error });
    form.append(
      h(
        'div.param-row.unset',
        h('label.param-key', { for: id, title: spec.doc || '' }, spec.name, h('span.param-type', spec.type)),
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
      const res = row.spec ? parseUnset(row.spec, row.input) : parseField(row.kind, row.input);
      if (res.skip) continue;
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
