import { describe } from 'vitest';
import { testWithHarness } from './harness.js';
import { accountsSuite } from './records/accounts.js';
import { apiKeysSuite } from './records/api-keys.js';
import { attachmentsSuite } from './records/attachments.js';
import { auditSuite } from './records/audit.js';
import { changesSuite } from './records/changes.js';
import { changesetsSuite } from './records/changesets.js';
import { chunksSuite } from './records/chunks.js';
import { draftsSuite } from './records/drafts.js';
import { durabilitySuite } from './records/durability.js';
import { filesSuite } from './records/files.js';
import { intentsSuite } from './records/intents.js';
import { linksSuite } from './records/links.js';
import { listsSuite } from './records/lists.js';
import { projectsSuite } from './records/projects.js';
import { revisionsSuite } from './records/revisions.js';
import { scheduleSuite } from './records/schedule.js';
import { searchSuite } from './records/search.js';
import { sharesSuite } from './records/shares.js';
import type { RecordsHarness } from './records/support.js';
import { transactionsSuite } from './records/transactions.js';
import { trashSuite } from './records/trash.js';
import { webhooksSuite } from './records/webhooks.js';

export type { RecordsHarness } from './records/support.js';

/**
 * The compliance suite of `RecordsRepository`, one file per concern under `records/` (the way
 * abstract-level splits its suite). `open` must return a fresh, empty, isolated store for every test;
 * optional features are read from `repository.supports` and gate the tests that need them.
 */
export function describeRecordsRepositoryContract(
  adapterName: string,
  open: () => Promise<RecordsHarness>,
): void {
  const context = { adapterName, test: testWithHarness(open) };
  describe(`RecordsRepository contract: ${adapterName}`, () => {
    accountsSuite(context);
    apiKeysSuite(context);
    auditSuite(context);
    changesSuite(context);
    projectsSuite(context);
    filesSuite(context);
    attachmentsSuite(context);
    listsSuite(context);
    revisionsSuite(context);
    changesetsSuite(context);
    searchSuite(context);
    chunksSuite(context);
    sharesSuite(context);
    draftsSuite(context);
    linksSuite(context);

    trashSuite(context);
    webhooksSuite(context);
    intentsSuite(context);
    scheduleSuite(context);
    transactionsSuite(context);
    durabilitySuite(context);
  });
}
