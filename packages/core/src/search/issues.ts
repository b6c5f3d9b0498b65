import { InvalidInputError, type ValidationIssue } from '../errors.js';

/**
 * The validation issues of the finding domain, in the interface's `{loc, msg, type}` shape and the
 * pydantic-style vocabulary of `validation/issues.ts`. Messages never repeat the caller's input.
 */
export const SEARCH_ISSUE = {
  stringType: { type: 'string_type', msg: 'Input should be a valid string' },
  objectType: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object' },
  listType: { type: 'list_type', msg: 'Input should be a valid list' },
  boolType: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  missing: { type: 'missing', msg: 'Field required' },
  extraForbidden: { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' },
  notUnicode: { type: 'value_error', msg: 'Value error, must be valid Unicode text' },
  queryTooLong: { type: 'string_too_long', msg: 'String should have at most 1000 characters' },
  queryTooManyWords: { type: 'value_error', msg: 'Value error, query must have at most 32 words' },
  queryNoWord: { type: 'value_error', msg: 'Value error, query must have a word that is not excluded' },
  filterShape: {
    type: 'value_error',
    msg: 'Value error, a filter is {"and": [...]}, {"or": [...]}, {"not": FILTER} or {"field", "op", "value"}',
  },
  filterTooManyConditions: {
    type: 'value_error',
    msg: 'Value error, filter must have at most 50 conditions',
  },
  filterTooDeep: { type: 'value_error', msg: 'Value error, filter must be nested at most 8 levels deep' },
  fieldUnknown: {
    type: 'value_error',
    msg: 'Value error, field must be filename, size_bytes, created_date, updated_date, revision, metadata.KEY… or frontmatter.KEY…',
  },
  fieldTooLong: { type: 'value_error', msg: 'Value error, field path must have at most 32 keys' },
  opUnknown: {
    type: 'literal_error',
    msg: "Input should be 'eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists' or 'prefix'",
  },
  stringTooLong: { type: 'string_too_long', msg: 'String should have at most 1024 bytes' },
  jsonValue: { type: 'value_error', msg: 'Value error, must be a JSON value' },
  valueTooDeep: { type: 'value_error', msg: 'Value error, value must be nested at most 32 levels deep' },
  inTooLong: { type: 'too_long', msg: 'List should have at most 100 items' },
  datetime: { type: 'datetime_from_date_parsing', msg: 'Input should be a valid ISO 8601 date or datetime' },
  cursor: { type: 'value_error', msg: 'Value error, invalid cursor' },
  sortUnknown: {
    type: 'literal_error',
    msg: "Input should be 'relevance', 'filename', 'created_date', 'updated_date' or 'size_bytes'",
  },
  orderUnknown: { type: 'literal_error', msg: "Input should be 'asc' or 'desc'" },
  modeUnknown: { type: 'literal_error', msg: "Input should be 'text', 'semantic' or 'hybrid'" },
  modeOff: {
    type: 'value_error',
    msg: 'Value error, search by meaning needs embeddings, which are off on this server (MDSTORE_EMBEDDINGS)',
  },
  meaningNeedsQuery: { type: 'missing', msg: 'Field required: semantic and hybrid search need a query' },
  meaningSortsByRelevance: {
    type: 'value_error',
    msg: 'Value error, semantic and hybrid search sort by relevance',
  },
  relevanceNeedsQuery: { type: 'value_error', msg: 'Value error, sort relevance needs a query' },
  intType: { type: 'int_type', msg: 'Input should be a valid integer' },
  limitTooSmall: { type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1' },
  limitTooLarge: { type: 'less_than_equal', msg: 'Input should be less than or equal to 100' },
  projectIdsTooLong: { type: 'too_long', msg: 'List should have at most 100 items' },
  uuid: { type: 'uuid_parsing', msg: 'Input should be a valid UUID' },
} as const satisfies Record<string, Omit<ValidationIssue, 'loc'>>;

export type SearchIssueKind = keyof typeof SEARCH_ISSUE;

export type Loc = readonly (string | number)[];

/** The one-issue `InvalidInputError` (422) the finding domain throws. */
export function invalidAt(loc: Loc, kind: SearchIssueKind): InvalidInputError {
  const entry = SEARCH_ISSUE[kind];
  return new InvalidInputError([{ loc: [...loc], msg: entry.msg, type: entry.type }]);
}
