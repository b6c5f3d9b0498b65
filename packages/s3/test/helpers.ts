import { randomBytes } from 'node:crypto';
import type { BlobStore, ByteStream } from '@mdstore/core';

/** A fresh valid bucket name, so tests sharing one s3rver never meet. */
export const uniqueBucket = (label = 'b'): string => `${label}-${randomBytes(6).toString('hex')}`;

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export async function* chunks(...parts: (string | Uint8Array)[]): ByteStream {
  for (const part of parts) yield typeof part === 'string' ? bytes(part) : part;
}

export const readAll = async (stream: AsyncIterable<Uint8Array>): Promise<Buffer> => {
  const collected: Uint8Array[] = [];
  for await (const chunk of stream) collected.push(chunk);
  return Buffer.concat(collected);
};

export const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const result: T[] = [];
  for await (const item of items) result.push(item);
  return result;
};

export const listAll = async (store: BlobStore, bucket: string) => {
  if (!store.list) throw new Error('store cannot list');
  return collect(store.list({ bucket }));
};
