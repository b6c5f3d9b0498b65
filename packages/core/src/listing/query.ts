import { InvalidInputError, type ValidationIssue } from '../errors.js';
import type { FileSortField } from '../ports/records.js';
import { isWellFormedUnicode, utf8ByteLength } from '../validation/text.js';
import { LIST_LIMITS } from './limits.js';

/**
 * The query parameters of List Files and List Projects (extensions §3) as a caller hands them over:
 * strings from a URL, or numbers from a typed caller (MCP, embedding). Unknown parameters never get here.
 */
export interface ListParams {
  readonly limit?: string | number;
  readonly cursor?: string;
}
export interface FileListParams extends ListParams {
  readonly sort?: string;
  readonly order?: string;
  readonly prefix?: string;
  readonly delimiter?: string;
}

/** A validated List Projects request. `limit` or `cursor` make the answer one page. */
export interface ListRequest {
  readonly paged: boolean;
  readonly limit: number | undefined;
  readonly cursor: string | undefined;
}

/** A validated List Files request. */
export interface FileListRequest extends ListRequest {
  readonly sort: FileSortField;
  readonly descending: boolean;
  readonly prefix: string;
  readonly delimiter: boolean;
  /** `prefix` or `delimiter` was given: the answer carries `next_cursor` even unpaged. */
  readonly narrowed: boolean;
}

const SORTS: Readonly<Record<string, FileSortField>> = {
  filename: 'filename',
  created_date: 'createdAt',
  updated_date: 'updatedAt',
  size_bytes: 'sizeBytes',
};

const issue = (name: string, msg: string, type = 'value_error'): ValidationIssue => ({
  loc: ['query', name],
  msg,
  type,
});

const LIMIT_TEXT = /^[0-9]+$/;

function parseLimit(raw: unknown): number | ValidationIssue | undefined {
  if (raw === undefined) return undefined;
  const value =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && LIMIT_TEXT.test(raw)
        ? Number(raw)
        : Number.NaN;
  if (!Number.isInteger(value)) return issue('limit', 'Input should be a valid integer', 'int_parsing');
  if (value < 1) return issue('limit', 'Input should be greater than or equal to 1', 'greater_than_equal');
  if (value > LIST_LIMITS.maxLimit)
    return issue('limit', `Input should be less than or equal to ${LIST_LIMITS.maxLimit}`, 'less_than_equal');
  return value;
}

function parseCursor(raw: unknown): string | ValidationIssue | undefined {
  if (raw === undefined) return undefined;
  return typeof raw === 'string' ? raw : issue('cursor', 'Input should be a valid string', 'string_type');
}

/** Every problem of the parameters at once, each at `["query", name]`; 422. */
function finish<T>(issues: ValidationIssue[], value: T): T {
  if (issues.length > 0) throw new InvalidInputError(issues);
  return value;
}

const isIssue = (value: unknown): value is ValidationIssue =>
  typeof value === 'object' && value !== null && 'loc' in value;

/** The `limit` and `cursor` of a list; their problems go to `issues`. */
function readListParams(params: ListParams, issues: ValidationIssue[]): ListRequest {
  const limit = parseLimit(params.limit);
  const cursor = parseCursor(params.cursor);
  for (const found of [limit, cursor]) if (isIssue(found)) issues.push(found);
  return {
    paged: params.limit !== undefined || params.cursor !== undefined,
    limit: isIssue(limit) ? undefined : limit,
    cursor: isIssue(cursor) ? undefined : cursor,
  };
}

export function parseListParams(params: ListParams = {}): ListRequest {
  const issues: ValidationIssue[] = [];
  const request = readListParams(params, issues);
  return finish(issues, request);
}

export function parseFileListParams(params: FileListParams = {}): FileListRequest {
  const issues: ValidationIssue[] = [];
  const base = readListParams(params, issues);
  const sort =
    params.sort === undefined
      ? 'filename'
      : Object.hasOwn(SORTS, params.sort)
        ? SORTS[params.sort]
        : undefined;
  if (sort === undefined)
    issues.push(
      issue('sort', "Input should be 'filename', 'created_date', 'updated_date' or 'size_bytes'", 'enum'),
    );
  if (params.order !== undefined && params.order !== 'asc' && params.order !== 'desc')
    issues.push(issue('order', "Input should be 'asc' or 'desc'", 'enum'));
  const prefix = params.prefix ?? '';
  if (typeof prefix !== 'string' || !isWellFormedUnicode(prefix))
    issues.push(issue('prefix', 'Value error, must be valid Unicode text'));
  else if (utf8ByteLength(prefix) > LIST_LIMITS.maxPrefixBytes)
    issues.push(
      issue('prefix', `String should have at most ${LIST_LIMITS.maxPrefixBytes} bytes`, 'string_too_long'),
    );
  if (params.delimiter !== undefined && params.delimiter !== '/')
    issues.push(issue('delimiter', "Input should be '/'", 'literal_error'));
  else if (params.delimiter !== undefined && sort !== undefined && sort !== 'filename')
    issues.push(issue('sort', "Value error, with a delimiter the sort must be 'filename'"));
  return finish(issues, {
    ...base,
    sort: sort ?? 'filename',
    descending: params.order === 'desc',
    prefix,
    delimiter: params.delimiter !== undefined,
    narrowed: params.prefix !== undefined || params.delimiter !== undefined,
  });
}
