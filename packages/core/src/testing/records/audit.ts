import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { AuditRecord } from '../../model/records.js';
import { BASE_TIME } from '../builders.js';
import { ascendingIds, type SuiteContext } from './support.js';

const anEntry = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  id: randomUUID(),
  at: BASE_TIME,
  accountId: randomUUID(),
  keyId: randomUUID(),
  action: 'PUT /api/projects/:project_id/files/:filename',
  projectId: randomUUID(),
  filename: 'notes/ü.md',
  status: 200,
  requestId: 'req-1',
  ip: '127.0.0.1',
  ...overrides,
});

export function auditSuite({ test }: SuiteContext): void {
  describe('audit log', () => {
    test("lists an account's entries newest first, filtered and paged by position", async ({
      repository,
    }) => {
      const accountId = randomUUID();
      const [k1, k2] = [randomUUID(), randomUUID()];
      const [p1, p2] = [randomUUID(), randomUUID()];
      const ids = ascendingIds(5) as [string, string, string, string, string];
      const entries = [
        anEntry({ id: ids[0], accountId, at: BASE_TIME + 1, keyId: k1, projectId: p1, status: 201 }),
        anEntry({ id: ids[1], accountId, at: BASE_TIME + 2, keyId: k2, projectId: p2, status: 403 }),
        anEntry({ id: ids[2], accountId, at: BASE_TIME + 2, keyId: k1, projectId: null, filename: null }),
        anEntry({ id: ids[3], accountId, at: BASE_TIME + 3, keyId: k1, projectId: p1, status: 412 }),
        anEntry({ id: ids[4], accountId: null, keyId: null, at: BASE_TIME + 4, status: 401 }),
      ];
      await repository.withTransaction((tx) => tx.insertAuditEntries({ entries }));
      const list = (q: Partial<Parameters<typeof repository.listAuditEntries>[0]> = {}) =>
        repository.listAuditEntries({ accountId, limit: 10, ...q });
      const idsOf = async (q: Partial<Parameters<typeof repository.listAuditEntries>[0]> = {}) =>
        (await list(q)).map((entry) => entry.id);
      expect(await list()).toEqual([entries[3], entries[2], entries[1], entries[0]]);
      expect(await idsOf({ limit: 2 })).toEqual([ids[3], ids[2]]);
      expect(await idsOf({ after: { at: BASE_TIME + 2, id: ids[2] } })).toEqual([ids[1], ids[0]]);
      expect(await idsOf({ keyId: k1 })).toEqual([ids[3], ids[2], ids[0]]);
      expect(await idsOf({ projectIds: [p1] })).toEqual([ids[3], ids[0]]);
      expect(await idsOf({ projectIds: [p1, p2] })).toEqual([ids[3], ids[1], ids[0]]);
      expect(await idsOf({ projectIds: [] })).toEqual([]);
      expect(await idsOf({ status: 403 })).toEqual([ids[1]]);
      expect(await idsOf({ since: BASE_TIME + 2, until: BASE_TIME + 3 })).toEqual([ids[2], ids[1]]);
      expect(await idsOf({ accountId: randomUUID() })).toEqual([]);
    });

    test('deletes entries older than a time, oldest first, at most the limit', async ({ repository }) => {
      const accountId = randomUUID();
      const entries = [3, 1, 2, 5].map((offset) => anEntry({ accountId, at: BASE_TIME + offset }));
      await repository.withTransaction((tx) => tx.insertAuditEntries({ entries }));
      const expire = (before: number, limit: number) =>
        repository.withTransaction((tx) => tx.deleteAuditEntriesBefore({ before, limit }));
      expect(await expire(BASE_TIME + 4, 2)).toBe(2);
      const left = async () =>
        (await repository.listAuditEntries({ accountId, limit: 10 })).map((entry) => entry.at - BASE_TIME);
      expect(await left()).toEqual([5, 3]);
      expect(await expire(BASE_TIME + 4, 10)).toBe(1);
      expect(await expire(BASE_TIME + 4, 10)).toBe(0);
      expect(await left()).toEqual([5]);
    });
  });
}
