import { hasNulCharacter, ISSUE, type ValidationIssue } from '@mdstore/core';
import type { Request } from 'express';
import { HttpError } from './errors.js';

export const queryIssue = (name: string, msg: string): ValidationIssue => ({
  loc: ['query', name],
  msg: `Value error, ${msg}`,
  type: 'value_error',
});

/**
 * A query string's name/value pairs, percent-decoded strictly as UTF-8 (`+` is a space, as in forms),
 * for the names in `wanted` only (the app's query parser is off: every route reads what it needs, and
 * other parameters are ignored, as before). A value that does not decode is 422 `["query", NAME]`.
 */
export function queryPairs(req: Request, wanted: ReadonlySet<string>): Array<[string, string]> {
  const at = req.originalUrl.indexOf('?');
  if (at === -1) return [];
  const pairs: Array<[string, string]> = [];
  for (const pair of req.originalUrl.slice(at + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals), null);
    if (!wanted.has(name)) continue;
    pairs.push([name, decodeQueryPart(equals === -1 ? '' : pair.slice(equals + 1), name)]);
  }
  return pairs;
}

/** Parameters that may be given once each: a second one is 422 `["query", NAME]`. */
export function singleQueryParams<N extends string>(
  req: Request,
  names: readonly N[],
): Partial<Record<N, string>> {
  const params: Partial<Record<N, string>> = {};
  for (const [name, value] of queryPairs(req, new Set(names))) {
    if (Object.hasOwn(params, name))
      throw new HttpError(422, [queryIssue(name, `${name} may be given once`)]);
    params[name as N] = value;
  }
  return params;
}

/**
 * One name or value, percent-decoded strictly as UTF-8. A value holding U+0000 is 422 too: no store
 * can hold it (Postgres refuses it in text), and no parameter has a use for it.
 */
export function decodeQueryPart(raw: string, name: string | null): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // A parameter name that does not decode cannot be one of ours.
    if (name === null) return '';
    throw new HttpError(422, [queryIssue(name, 'the value is not valid percent-encoded UTF-8')]);
  }
  if (name !== null && hasNulCharacter(decoded)) {
    throw new HttpError(422, [{ loc: ['query', name], msg: ISSUE.nulChar.msg, type: ISSUE.nulChar.type }]);
  }
  return decoded;
}
