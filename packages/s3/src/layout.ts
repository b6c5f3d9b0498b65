/**
 * Where a logical (port) bucket and key live in S3.
 *
 * - `bucket-per-project`: one S3 bucket per logical bucket.
 * - `single-bucket`: for stores with a bucket quota, every logical bucket is the key prefix `<bucket>/`
 *   inside one configured S3 bucket. Logical bucket names never contain `/`, so no two prefixes overlap
 *   and no key can leave its prefix. The object `<bucket>/` itself (an empty remainder, which no real
 *   key has, since keys are at least one byte) marks that the logical bucket exists.
 *
 * In both, keys go through `encodeKey` (see keys.ts): ordinary keys unchanged, hostile ones escaped.
 */
import { decodeKey, encodeKey } from './keys.js';

export type S3Layout = { kind: 'bucket-per-project' } | { kind: 'single-bucket'; bucket: string };

export interface ObjectAddress {
  readonly Bucket: string;
  readonly Key: string;
}

export interface LayoutMapping {
  readonly kind: S3Layout['kind'];
  object(bucket: string, key: string): ObjectAddress;
  /** The S3 bucket and key prefix that hold every object of a logical bucket. */
  scope(bucket: string): { Bucket: string; Prefix: string };
  /** The logical key of a listed S3 key, or undefined for the bucket marker. */
  logicalKey(bucket: string, s3Key: string): string | undefined;
  /** Address of the existence marker (single-bucket layout only). */
  marker(bucket: string): ObjectAddress;
}

// The port's rule for bucket names; checked where a bad name could otherwise reach another bucket's keys.
const BUCKET_NAME = /^[a-z0-9-]{3,63}$/;

const checkedBucket = (bucket: string): string => {
  if (!BUCKET_NAME.test(bucket)) throw new RangeError(`Invalid bucket name: ${JSON.stringify(bucket)}`);
  return bucket;
};

export const layoutMapping = (layout: S3Layout): LayoutMapping => {
  if (layout.kind === 'bucket-per-project') {
    return {
      kind: layout.kind,
      object: (bucket, key) => ({ Bucket: bucket, Key: encodeKey(key) }),
      scope: (bucket) => ({ Bucket: bucket, Prefix: '' }),
      logicalKey: (_bucket, s3Key) => decodeKey(s3Key),
      marker: () => {
        throw new Error('bucket-per-project layout has no bucket marker');
      },
    };
  }
  const physical = layout.bucket;
  const prefixOf = (bucket: string) => `${checkedBucket(bucket)}/`;
  return {
    kind: layout.kind,
    object: (bucket, key) => ({ Bucket: physical, Key: prefixOf(bucket) + encodeKey(key) }),
    scope: (bucket) => ({ Bucket: physical, Prefix: prefixOf(bucket) }),
    logicalKey: (bucket, s3Key) => {
      const rest = s3Key.slice(prefixOf(bucket).length);
      return rest === '' ? undefined : decodeKey(rest);
    },
    marker: (bucket) => ({ Bucket: physical, Key: prefixOf(bucket) }),
  };
};
