// The engine's IPC contract for the tests: the JSON Schema generated from the Rust types (src/generated/ipc.schema.json) loaded into ajv, and the check of the answers a window sends.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';

export const schema = JSON.parse(readFileSync(new URL('../../src/generated/ipc.schema.json', import.meta.url), 'utf8'));

// schemars' integer formats (uint64, …) are sizes, not a format to check; the rest is checked strictly.
// Tagged unions (`oneOf` whose variants each fix one property to a constant) are checked by their
// tag (ajv's discriminator), so an error names the fields of the variant the value claims to be.
// ajv applies a discriminator to objects only (and then skips the `oneOf`), so such a union whose
// variants are all objects also gets `type: "object"`: a string or null is refused, as the `oneOf` would.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, discriminator: true });
const SCHEMA_ID = 'ipc';
ajv.addSchema({ ...tagUnions(schema), $id: SCHEMA_ID });

/** A copy of `s` with `discriminator` (and `type: "object"`) on every tagged `oneOf`. */
function tagUnions(s) {
  if (Array.isArray(s)) return s.map(tagUnions);
  if (!s || typeof s !== 'object') return s;
  const out = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, tagUnions(v)]));
  const variants = out.oneOf;
  if (Array.isArray(variants) && variants.length > 1) {
    const tags = Object.keys(variants[0].properties ?? {}).filter((k) => variants.every((v) => v.properties?.[k]?.const !== undefined && v.required?.includes(k)));
    if (tags.length) {
      out.discriminator = { propertyName: tags[0] };
      if (variants.every((v) => v.type === 'object')) out.type ??= 'object';
    }
  }
  return out;
}

const validators = new Map();

/** The validator for a part of the contract: `commands/app_info`, `channel`, `event`, `$defs/Event`, `answers/review_step`. */
export function validator(part) {
  if (!validators.has(part)) validators.set(part, ajv.compile({ $ref: `${SCHEMA_ID}#/${part}` }));
  return validators.get(part);
}

/** What is wrong with `value` as the part `part` of the contract: one line per ajv error, [] when it fits. */
export function contractErrors(part, value) {
  const validate = validator(part);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/**
 * What is wrong with the answers a window sent: `answers` as the Tauri mock records them,
 * [{ id, answer, question }] with `question` the type of the question `id` named when the answer
 * was sent (null if no such question was asked). Each answer must fit `answers[question]` of the
 * schema. One message per wrong answer, naming the question type and the ajv errors; [] when all fit.
 */
export function answerProblems(answers) {
  const problems = [];
  for (const { id, answer, question } of answers) {
    const sent = `answer(${id}, ${JSON.stringify(answer)?.slice(0, 200)})`;
    if (!question) problems.push(`${sent}: no question ${id} was asked before it`);
    else if (!schema.answers || !(question in schema.answers)) problems.push(`${sent}: the contract has no answer for a ${question} question`);
    else {
      const errors = contractErrors(`answers/${question}`, answer);
      if (errors.length) problems.push(`${sent} does not fit answers/${question}: ${errors.join('; ')}`);
    }
  }
  return problems;
}
