import type { WireBody } from './transport.js';

/**
 * Content the SDK uploads. Strings are sent as UTF-8. `string`, bytes and `Blob` (a browser `File`, or
 * Node's `fs.openAsBlob(path)`, which streams from disk) can be sent again on a retry; a web
 * `ReadableStream` or any async iterable of bytes (a Node `Readable`, a generator) is streamed once.
 */
export type ContentInput =
  | string
  | Uint8Array
  | ArrayBuffer
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

const encoder = new TextEncoder();

export const isStreamInput = (
  content: ContentInput,
): content is ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> =>
  content instanceof ReadableStream || (typeof content === 'object' && Symbol.asyncIterator in content);

/** The content as something `fetch` sends: replayable inputs as they are, iterables as a web stream. */
export function toWireBody(content: ContentInput): WireBody {
  if (typeof content === 'string') return encoder.encode(content);
  if (content instanceof ReadableStream) return content;
  if (content instanceof Uint8Array || content instanceof ArrayBuffer || content instanceof Blob)
    return content;
  return iterableToStream(content);
}

/** A replayable input as one buffer (for a digest or a multipart body). */
export async function bufferOf(content: Exclude<ContentInput, ReadableStream | AsyncIterable<Uint8Array>>) {
  if (typeof content === 'string') return encoder.encode(content);
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  return new Uint8Array(await content.arrayBuffer());
}

/** Pull-based, so backpressure reaches the source (`ReadableStream.from` is missing in some browsers). */
export function iterableToStream(iterable: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/** A stream that yields `head`, then everything of `body`, then `tail`. */
export function framedStream(
  head: Uint8Array,
  body: ReadableStream<Uint8Array>,
  tail: Uint8Array,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let stage: 'head' | 'body' | 'done' = 'head';
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 'head') {
        stage = 'body';
        controller.enqueue(head);
        return;
      }
      if (stage === 'done') return;
      const next = await reader.read();
      if (!next.done) {
        controller.enqueue(next.value);
        return;
      }
      stage = 'done';
      controller.enqueue(tail);
      controller.close();
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}
