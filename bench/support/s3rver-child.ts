// Runs s3rver (with the atomic-write patch the mdstore tests use) in its own process, so that its CPU and
// event loop are not shared with the load generator. Prints one JSON line `{"endpoint": ...}` when ready.
import { startS3rver } from '@mdstore/s3/testing';

const s3rver = await startS3rver();
process.stdout.write(`${JSON.stringify({ endpoint: s3rver.endpoint })}\n`);

const stop = () => {
  s3rver.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
