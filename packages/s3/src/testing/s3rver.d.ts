// s3rver ships no types; this declares the part of its API the test harness uses.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';
  import type { S3rverFilesystemStore } from './atomic-writes.js';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    readonly httpServer: Server | undefined;
    /** The filesystem store behind the server (not in s3rver's documented API). */
    readonly store: S3rverFilesystemStore;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export default S3rver;
}
