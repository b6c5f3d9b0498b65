import type { Filter, FilterableFile, FilterCondition, FilterOp } from './ast.js';
import { jsonCompare, jsonEqual, lookupPath } from './json.js';

/** Whether the file matches the filter, exactly per extensions §3 (the reference for every store). */
export function evaluateFilter(filter: Filter, file: FilterableFile): boolean {
  switch (filter.kind) {
    case 'and':
      return filter.filters.every((child) => evaluateFilter(child, file));
    case 'or':
      return filter.filters.some((child) => evaluateFilter(child, file));
    case 'not':
      return !evaluateFilter(filter.filter, file);
    case 'condition':
      return evaluateCondition(filter, file);
  }
}

function evaluateCondition(condition: FilterCondition, file: FilterableFile): boolean {
  const { field, op, value } = condition;
  if (field.kind === 'json') {
    const found = lookupPath(field.root === 'metadata' ? file.metadata : file.frontmatter, field.keys);
    if (op === 'exists') return found.present === value;
    if (!found.present) return op === 'ne';
    return applyOp(op, found.value, value);
  }
  switch (field.name) {
    case 'filename':
      return op === 'exists' ? value === true : applyOp(op, file.filename, value);
    case 'size_bytes':
      return op === 'exists' ? value === true : applyOp(op, file.sizeBytes, value);
    case 'revision':
      return op === 'exists' ? value === true : applyOp(op, file.revision, value);
    case 'created_date':
      return dateOp(condition, file.createdAt);
    case 'updated_date':
      return dateOp(condition, file.updatedAt);
  }
}

/** Date fields compare as instants; `contains` and `prefix` do not apply to them. */
function dateOp(condition: FilterCondition, actual: number): boolean {
  const instants = condition.instants ?? [];
  switch (condition.op) {
    case 'exists':
      return condition.value === true;
    case 'in':
      return instants.includes(actual);
    case 'contains':
    case 'prefix':
      return false;
    default:
      return applyOp(condition.op, actual, instants[0]);
  }
}

/** An operator on a present field value. */
function applyOp(op: Exclude<FilterOp, 'exists'>, actual: unknown, value: unknown): boolean {
  switch (op) {
    case 'eq':
      return jsonEqual(actual, value);
    case 'ne':
      return !jsonEqual(actual, value);
    case 'in':
      return Array.isArray(value) && value.some((item) => jsonEqual(actual, item));
    case 'contains':
      if (Array.isArray(actual)) return actual.some((item) => jsonEqual(item, value));
      return typeof actual === 'string' && typeof value === 'string' && actual.includes(value);
    case 'prefix':
      // parseFilter only lets a string through as the value of `prefix`.
      return typeof actual === 'string' && actual.startsWith(value as string);
    default: {
      const order = jsonCompare(actual, value);
      if (order === undefined) return false;
      if (op === 'lt') return order < 0;
      if (op === 'lte') return order <= 0;
      if (op === 'gt') return order > 0;
      return order >= 0;
    }
  }
}
