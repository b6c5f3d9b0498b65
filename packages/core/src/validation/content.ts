import { ContentTooLargeError, MalformedInputError } from '../errors.js';
import type { ByteStream } from '../ports/blobs.js';
import { issueAt } from './issues.js';
import { Utf8Validator } from './utf8.js';

/**
 * Passes content through while checking it: the size limit as bytes arrive (so an oversize body is
 * refused without being read whole), UTF-8 validity chunk by chunk, and non-emptiness at the end.
 * Failures are thrown from the iteration itself, so the blob store aborts the write and stores nothing.
 */
export async function* checkedContent(
  content: ByteStream,
  options: { maxBytes: number; loc: readonly (string | number)[] },
): ByteStream {
  const utf8 = new Utf8Validator();
  let total = 0;
  for await (const chunk of content) {
    total += chunk.byteLength;
    if (total > options.maxBytes) throw new ContentTooLargeError(options.maxBytes);
    if (!utf8.push(chunk)) throw new MalformedInputError([issueAt(options.loc, 'contentNotUtf8')]);
    yield chunk;
  }
  if (total === 0) throw new MalformedInputError([issueAt(options.loc, 'contentEmpty')]);
  if (!utf8.finish()) throw new MalformedInputError([issueAt(options.loc, 'contentNotUtf8')]);
}
