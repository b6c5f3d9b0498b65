import { utf8ByteLength } from '../../validation/text.js';
import { invalidAt, type Loc } from '../issues.js';
import { SEARCH_LIMITS } from '../limits.js';
import {
  FILTER_OPS,
  FIXED_FIELDS,
  type Filter,
  type FilterCondition,
  type FilterField,
  type FilterOp,
  isDateField,
  JSON_ROOTS,
  type JsonRoot,
  type JsonValue,
} from './ast.js';
import { parseInstant } from './dates.js';

const LOC = ['body', 'filter'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses a FILTER (extensions §3). A filter object has exactly the members of one form: `and` or `or`
 * (a list, which may be empty: all of nothing holds, any of nothing does not), `not`, or a condition's
 * `field`, `op` and `value` (all three required, `value` too for `exists`). Fields: `filename`,
 * `size_bytes`, `created_date`, `updated_date`, `revision`, `metadata.K.K…` / `frontmatter.K.K…` (no
 * empty key; use the list form `["metadata", "key.with.dots", ""]` for any key). Values are checked
 * where the operator needs a kind: `exists` a boolean, `in` a list of at most 100, `prefix` a string,
 * and on the date fields `eq`…`gte` an ISO 8601 date (`in`: each element). Any other kind mismatch is
 * legal and simply never matches. Limits: 50 conditions, 8 levels (the top filter is level 1), strings
 * (values, keys inside values, field paths) at most 1 KiB of UTF-8 and well-formed Unicode, values at
 * most 32 levels deep, paths at most 32 keys. The first problem found is reported as an
 * `InvalidInputError` with its `loc` under `["body","filter"]`.
 */
export function parseFilter(value: unknown): Filter {
  return parseNode(value, LOC, 1, { conditions: 0 });
}

function parseNode(node: unknown, loc: Loc, level: number, count: { conditions: number }): Filter {
  if (level > SEARCH_LIMITS.filterMaxLevels) throw invalidAt(loc, 'filterTooDeep');
  if (!isObject(node)) throw invalidAt(loc, 'objectType');
  const form = (['and', 'or', 'not'] as const).find((key) => Object.hasOwn(node, key));
  if (form !== undefined) {
    rejectOtherKeys(node, [form], loc);
    if (form === 'not')
      return { kind: 'not', filter: parseNode(node.not, [...loc, 'not'], level + 1, count) };
    const children = node[form];
    if (!Array.isArray(children)) throw invalidAt([...loc, form], 'listType');
    const filters = children.map((child, index) => parseNode(child, [...loc, form, index], level + 1, count));
    return { kind: form, filters };
  }
  if (!['field', 'op', 'value'].some((key) => Object.hasOwn(node, key))) throw invalidAt(loc, 'filterShape');
  count.conditions += 1;
  if (count.conditions > SEARCH_LIMITS.filterMaxConditions) throw invalidAt(loc, 'filterTooManyConditions');
  return parseCondition(node, loc);
}

function rejectOtherKeys(node: Record<string, unknown>, allowed: readonly string[], loc: Loc): void {
  const extra = Object.keys(node).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw invalidAt([...loc, extra], 'extraForbidden');
}

function parseCondition(node: Record<string, unknown>, loc: Loc): FilterCondition {
  rejectOtherKeys(node, ['field', 'op', 'value'], loc);
  for (const key of ['field', 'op', 'value']) {
    if (!Object.hasOwn(node, key)) throw invalidAt([...loc, key], 'missing');
  }
  const field = parseField(node.field, [...loc, 'field']);
  const op = node.op;
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
    throw invalidAt([...loc, 'op'], 'opUnknown');
  }
  const valueLoc = [...loc, 'value'];
  const value = checkJson(node.value, valueLoc, 1);
  return {
    kind: 'condition',
    field,
    op: op as FilterOp,
    value,
    instants: checkOperand(op as FilterOp, field, value, valueLoc),
  };
}

function parseField(field: unknown, loc: Loc): FilterField {
  if (typeof field === 'string') {
    checkString(field, loc);
    const fixed = FIXED_FIELDS.find((name) => name === field);
    if (fixed) return { kind: 'fixed', name: fixed };
    const dot = field.indexOf('.');
    const root = JSON_ROOTS.find((name) => name === field.slice(0, dot));
    const keys = field.slice(dot + 1).split('.');
    if (dot < 0 || !root || keys.includes('')) throw invalidAt(loc, 'fieldUnknown');
    return jsonField(root, keys, loc);
  }
  if (Array.isArray(field)) {
    field.forEach((part, index) => {
      if (typeof part !== 'string') throw invalidAt([...loc, index], 'stringType');
      checkString(part, [...loc, index]);
    });
    const root = JSON_ROOTS.find((name) => name === field[0]);
    if (!root || field.length < 2) throw invalidAt(loc, 'fieldUnknown');
    return jsonField(root, field.slice(1) as string[], loc);
  }
  throw invalidAt(loc, 'fieldUnknown');
}

function jsonField(root: JsonRoot, keys: readonly string[], loc: Loc): FilterField {
  if (keys.length > SEARCH_LIMITS.filterMaxPathKeys) throw invalidAt(loc, 'fieldTooLong');
  return { kind: 'json', root, keys };
}

function checkString(text: string, loc: Loc): void {
  if (!text.isWellFormed()) throw invalidAt(loc, 'notUnicode');
  if (utf8ByteLength(text) > SEARCH_LIMITS.filterMaxStringBytes) throw invalidAt(loc, 'stringTooLong');
}

const isPlain = (value: object) =>
  Array.isArray(value) || [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** A JSON value (as `JSON.parse` makes them) within the string and depth limits. */
function checkJson(value: unknown, loc: Loc, depth: number): JsonValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidAt(loc, 'jsonValue');
    return value;
  }
  if (typeof value === 'string') {
    checkString(value, loc);
    return value;
  }
  if (typeof value !== 'object' || !isPlain(value)) throw invalidAt(loc, 'jsonValue');
  if (depth > SEARCH_LIMITS.filterMaxValueDepth) throw invalidAt(loc, 'valueTooDeep');
  if (Array.isArray(value)) return value.map((item, index) => checkJson(item, [...loc, index], depth + 1));
  for (const [key, item] of Object.entries(value)) {
    checkString(key, [...loc, key]);
    checkJson(item, [...loc, key], depth + 1);
  }
  return value as JsonValue;
}

/** The kind checks that depend on the operator, and the instants of a date condition. */
function checkOperand(op: FilterOp, field: FilterField, value: JsonValue, loc: Loc): number[] | null {
  if (op === 'exists') {
    if (typeof value !== 'boolean') throw invalidAt(loc, 'boolType');
    return null;
  }
  if (op === 'prefix' && typeof value !== 'string') throw invalidAt(loc, 'stringType');
  if (op === 'in') {
    if (!Array.isArray(value)) throw invalidAt(loc, 'listType');
    if (value.length > SEARCH_LIMITS.filterMaxInValues) throw invalidAt(loc, 'inTooLong');
  }
  if (!isDateField(field) || op === 'contains' || op === 'prefix') return null;
  const items: readonly unknown[] = op === 'in' ? (value as readonly JsonValue[]) : [value];
  return items.map((item, index) => {
    const instant = typeof item === 'string' ? parseInstant(item) : undefined;
    if (instant === undefined) throw invalidAt(op === 'in' ? [...loc, index] : loc, 'datetime');
    return instant;
  });
}
