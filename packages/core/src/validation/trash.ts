import { InvalidInputError } from '../errors.js';
import { issueAt } from './issues.js';
import { checkUploadFilename, isJsonObject } from './schemas.js';

/**
 * The restore body of the trash (extensions §5); the list's `limit` and `cursor` are read as the lists'
 * (listing/). Restore body: absent, `{}` or `{"to": null}` restores under the original name; `to`
 * follows the filename rules (an attachment's, extensions §12: `checkTo` is `checkAttachmentPath`).
 */
export function parseTrashRestoreBody(
  body: unknown,
  checkTo: (to: string, loc: string[]) => void = checkUploadFilename,
): { to: string | null } {
  if (body === undefined || body === null) return { to: null };
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  if (body.to === undefined || body.to === null) return { to: null };
  const loc = ['body', 'to'];
  if (typeof body.to !== 'string') throw new InvalidInputError([issueAt(loc, 'stringType')]);
  checkTo(body.to, loc);
  return { to: body.to };
}
