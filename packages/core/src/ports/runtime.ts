import type { InstanceRecord } from '../model/records.js';

/** The time source. Domain code never reads the wall clock itself. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface IdSource {
  /** A random UUID v4, lower case. */
  uuid(): string;
}

/** Makes and hashes API key secrets. Hashes are fixed-length strings so they compare in constant time. */
export interface ApiKeySecrets {
  /** A new secret with at least 256 bits of entropy. */
  generate(): string;
  hash(secret: string): Promise<string>;
}

/** Tells whether a registered server process still runs, when the caller can know (same host). */
export interface InstanceProbe {
  readonly hostname: string;
  readonly pid: number;
  /** true or false when known for sure; undefined when only the heartbeat can tell. */
  isRunning(instance: Pick<InstanceRecord, 'hostname' | 'pid'>): boolean | undefined;
}

/** A SHA-256 fed chunk by chunk, as content streams through. */
export interface IncrementalHash {
  update(bytes: Uint8Array): void;
  /** Lower-case hex of the digest; call once, at the end. */
  digestHex(): string;
}

/** Hashing for content. The core's default is pure JavaScript; a Node host passes `node:crypto`'s. */
export interface ContentHashing {
  sha256(): IncrementalHash;
}
