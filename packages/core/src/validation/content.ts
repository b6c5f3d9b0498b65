import { MalformedInputError } from '../errors.js';
import type { ByteStream } from '../ports/blobs.js';
import { issueAt } from './issues.js';
import { Utf8Validator } from './utf8.js';

/**
 * Passes content through while checking it: UTF-8 validity chunk by chunk, and non-emptiness at the end.
 * Failures are thrown from the iteration itself, so the blob store aborts the write and stores nothing.
 * The size limit is not judged here: whoever holds the bytes counts them once (`storeContent` the
 * inline form's head, the blob store the blob form).
 */
export async function* checkedContent(
  content: ByteStream,
  options: { loc: readonly (string | number)[] },
): ByteStream {
  const utf8 = new Utf8Validator();
  let empty = true;
  for await (const chunk of content) {
    if (chunk.byteLength > 0) empty = false;
    if (!utf8.push(chunk)) throw new MalformedInputError([issueAt(options.loc, 'contentNotUtf8')]);
    yield chunk;
  }
  if (empty) throw new MalformedInputError([issueAt(options.loc, 'contentEmpty')]);
  if (!utf8.finish()) throw new MalformedInputError([issueAt(options.loc, 'contentNotUtf8')]);
}
