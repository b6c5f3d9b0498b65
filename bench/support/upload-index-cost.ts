// What the search index costs an upload, in process, on the store the environment points at (the bench
// runs it with the sqlite+fs and the postgres+s3 environments):
//   node --conditions=mdstore-source --import tsx bench/support/upload-index-cost.ts [--quick]
// Two stores on the same adapters: the real one, and one whose records transactions make `indexFile` a
// no-op (everything else, including the text read while the content streams in, is unchanged). Each
// uploads 4 KiB Markdown files one at a time into a project of its own, in alternating rounds; the
// median of the rounds' mean upload times is printed as JSON: {"indexed_ms":…,"plain_ms":…,"uploads":…}.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import {
  type BlobStore,
  createMdStore,
  type RateLimiter,
  type RecordsRepository,
  type RecordsTransaction,
} from '@mdstore/core';
import { createRuntime } from '../../apps/server/src/composition/index.js';
import { nodeCryptoHashing, nodeCryptoSecrets } from '../../apps/server/src/composition/secrets.js';
import { TOKENS } from '../../apps/server/src/composition/tokens.js';
import { loadConfig } from '../../apps/server/src/config/index.js';
import { createLogger } from '../../apps/server/src/logger.js';
import { markdownBytes } from '../lib/content.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const ROUND_MS = flags.quick ? 300 : 1_500;
const ROUNDS = flags.quick ? 2 : 6;

/** The same repository, but a transaction's `indexFile` does nothing. */
function withoutIndex(records: RecordsRepository): RecordsRepository {
  const skipIndex = (tx: RecordsTransaction): RecordsTransaction =>
    new Proxy(tx, {
      get(target, property) {
        if (property === 'indexFile') return async () => {};
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(records, {
    get(target, property) {
      if (property === 'withTransaction')
        return <T>(work: (tx: RecordsTransaction) => Promise<T>) =>
          target.withTransaction((tx) => work(skipIndex(tx)));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
try {
  const indexed = runtime.store;
  const plain = createMdStore({
    records: withoutIndex(runtime.container.resolve<RecordsRepository>(TOKENS.records)),
    blobs: runtime.container.resolve<BlobStore>(TOKENS.blobs),
    rateLimiter: runtime.container.resolve<RateLimiter>(TOKENS.rateLimiter),
    secrets: nodeCryptoSecrets,
    hashing: nodeCryptoHashing,
    settings: indexed.settings,
  });
  const created = await indexed.accounts.create({ name: `upload-index-${Date.now()}` });
  const principal = {
    role: 'admin' as const,
    projectIds: null,
    pathPrefixes: null,
    expiresAt: null,
    accountId: created.account.id,
    keyId: created.apiKey.keyId,
    tier: created.account.tier,
  };
  // UPLOAD_BYTES changes the size (e.g. 1048576 for the large-file cost of indexing).
  const content = markdownBytes(Number(process.env.UPLOAD_BYTES ?? 4 * 1024));
  let counter = 0;
  const variants = await Promise.all(
    [indexed, plain].map(async (store, index) => ({
      store,
      projectId: (await store.projects.create({ principal, body: { name: `variant-${index}` } })).id,
      means: [] as number[],
    })),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const started = performance.now();
      let uploads = 0;
      while (performance.now() - started < ROUND_MS) {
        await variant.store.files.upload({
          principal,
          projectId: variant.projectId,
          filename: `u-${String(counter++).padStart(7, '0')}.md`,
          content: (async function* () {
            yield content;
          })(),
        });
        uploads++;
      }
      variant.means.push((performance.now() - started) / uploads);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(
    `${JSON.stringify({ indexed_ms: median(variants[0]!.means), plain_ms: median(variants[1]!.means), uploads: counter })}\n`,
  );
} finally {
  await runtime.close();
}
