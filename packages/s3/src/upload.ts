import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { BlobTooLargeError, type ByteStream, type StoredBlob } from '@mdstore/core';
import type { ObjectAddress } from './layout.js';
import type { Request } from './requests.js';

/**
 * Streams `content` to one S3 object with at most one part in memory, all or nothing.
 *
 * Why not one streamed PutObject: S3 needs the length of a streamed body up front (or aws-chunked
 * framing, which some S3-compatible stores keep as data). So the content is cut into parts of
 * `partSize` bytes: content that fits in one part is sent as a single PutObject with a known length;
 * anything longer becomes a multipart upload, sent one part at a time, that is only completed (made
 * visible) once the content has ended within `maxBytes`. Every failure aborts the multipart upload.
 */
export interface UploadInput {
  readonly client: S3Client;
  readonly request: Request;
  readonly target: ObjectAddress;
  readonly content: ByteStream;
  readonly maxBytes: number;
  readonly partSize: number;
  readonly signal: AbortSignal | undefined;
}

interface Part {
  readonly data: Buffer;
  readonly last: boolean;
}

export const uploadObject = async (input: UploadInput): Promise<StoredBlob> => {
  const counted = countAndHash(abortable(input.content, input.signal), input.maxBytes);
  const parts = cutIntoParts(counted.chunks, input.partSize)[Symbol.asyncIterator]();
  const first = await parts.next();
  const firstPart: Part = first.done ? { data: Buffer.alloc(0), last: true } : first.value;
  if (firstPart.last) await putSingle(input, firstPart.data);
  else await putMultipart(input, firstPart, parts);
  return counted.result();
};

const putSingle = async ({ client, request, target, signal }: UploadInput, data: Buffer) => {
  await request('PutObject', signal, (o) =>
    client.send(new PutObjectCommand({ ...target, Body: data, ContentLength: data.byteLength }), o),
  );
};

const putMultipart = async (input: UploadInput, firstPart: Part, rest: AsyncIterator<Part>) => {
  const { client, request, target, signal } = input;
  const created = await request('CreateMultipartUpload', signal, (o) =>
    client.send(new CreateMultipartUploadCommand({ ...target }), o),
  );
  const uploadId = created.UploadId;
  if (uploadId === undefined) throw new Error('CreateMultipartUpload returned no UploadId');
  try {
    const completed: CompletedPart[] = [];
    let part: Part = firstPart;
    for (;;) {
      completed.push(await uploadPart(input, uploadId, completed.length + 1, part.data));
      if (part.last) break;
      const next = await rest.next();
      if (next.done) break;
      part = next.value;
    }
    await request('CompleteMultipartUpload', signal, (o) =>
      client.send(
        new CompleteMultipartUploadCommand({
          ...target,
          UploadId: uploadId,
          MultipartUpload: { Parts: completed },
        }),
        o,
      ),
    );
  } catch (error) {
    await rest.return?.();
    await abortMultipart(input, uploadId);
    throw error;
  }
};

const uploadPart = async (
  { client, request, target, signal }: UploadInput,
  uploadId: string,
  partNumber: number,
  data: Buffer,
): Promise<CompletedPart> => {
  const uploaded = await request(`UploadPart ${partNumber}`, signal, (o) =>
    client.send(
      new UploadPartCommand({
        ...target,
        UploadId: uploadId,
        PartNumber: partNumber,
        Body: data,
        ContentLength: data.byteLength,
      }),
      o,
    ),
  );
  return { PartNumber: partNumber, ETag: uploaded.ETag };
};

// Best effort and without the caller's signal (which may be the reason we are here): an upload that is
// never completed stays invisible anyway, aborting it only frees the parts sooner.
const ABORT_TIMEOUT_MS = 10_000;

const abortMultipart = async ({ client, target }: UploadInput, uploadId: string) => {
  try {
    await client.send(new AbortMultipartUploadCommand({ ...target, UploadId: uploadId }), {
      abortSignal: AbortSignal.timeout(ABORT_TIMEOUT_MS),
    });
  } catch {
    // Stores without AbortMultipartUpload (s3rver) or a store that is down: nothing visible was made.
  }
};

/** Counts and hashes the bytes as they pass, failing as soon as more than `maxBytes` arrived. */
const countAndHash = (source: AsyncIterable<Uint8Array>, maxBytes: number) => {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  async function* chunks() {
    for await (const chunk of source) {
      sizeBytes += chunk.byteLength;
      if (sizeBytes > maxBytes) throw new BlobTooLargeError(maxBytes);
      hash.update(chunk);
      yield chunk;
    }
  }
  return { chunks: chunks(), result: (): StoredBlob => ({ sizeBytes, sha256: hash.digest('hex') }) };
};

/**
 * Cuts a byte stream into parts of exactly `partSize` bytes (some S3-compatible stores require equal
 * parts) and a shorter last one. A full part is only handed out once a further byte has arrived, so a
 * part is known to be the last one when it is handed out.
 */
async function* cutIntoParts(source: AsyncIterable<Uint8Array>, partSize: number): AsyncGenerator<Part> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    pendingBytes += chunk.byteLength;
    while (pendingBytes > partSize) {
      const joined = Buffer.concat(pending, pendingBytes);
      yield { data: Buffer.from(joined.subarray(0, partSize)), last: false };
      pending = [joined.subarray(partSize)];
      pendingBytes -= partSize;
    }
  }
  yield { data: Buffer.concat(pending, pendingBytes), last: true };
}

/**
 * Iterates `source` until `signal` aborts, even while the source is stuck waiting for bytes (a stalled
 * client): the pending read is abandoned and the source is told to stop.
 */
export async function* abortable<T>(
  source: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  if (signal === undefined) {
    yield* source;
    return;
  }
  signal.throwIfAborted();
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  let finished = false;
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not awaited: a source blocked in next() may only settle return() once that read completes.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}
