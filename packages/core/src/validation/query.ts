import { InvalidInputError } from '../errors.js';

/**
 * A boolean query parameter as the interface reads it (pydantic's rule): `true`/`1`/`yes`/`on` and
 * `false`/`0`/`no`/`off`, any case; absent is false; anything else is 422 `bool_parsing`.
 */
export function parseBooleanQuery(raw: string | undefined, name: string): boolean {
  if (raw === undefined) return false;
  const value = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new InvalidInputError([
    { loc: ['query', name], msg: 'Input should be a valid boolean', type: 'bool_parsing' },
  ]);
}
