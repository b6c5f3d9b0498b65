import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { DraftFileRecord, DraftRecord, DraftReviewRecord } from '../../model/records.js';
import type { RecordsRepository } from '../../ports/records.js';
import { BASE_TIME } from '../builders.js';
import { type SuiteContext, seedApiKey, seedProject } from './support.js';

/** Drafts (extensions §13): drafts paged newest first by state, their files by seq, reviews. */

function aDraft(
  project: { id: string; accountId: string },
  overrides: Partial<DraftRecord> = {},
): DraftRecord {
  return {
    id: randomUUID(),
    accountId: project.accountId,
    projectId: project.id,
    title: 'Fix the setup guide',
    description: null,
    state: 'open',
    authorKeyId: randomUUID(),
    changesetId: null,
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    ...overrides,
  };
}

function aDraftFile(draftId: string, overrides: Partial<DraftFileRecord> = {}): DraftFileRecord {
  return {
    draftId,
    seq: 0,
    filename: 'guides/setup.md',
    op: 'put',
    baseEtag: '"abc-1"',
    content: '# Setup\n\nnew text ✓\n',
    metadataJson: '{"tags":["a"]}',
    to: null,
    ...overrides,
  };
}

async function seedDraft(repository: RecordsRepository, draft: DraftRecord): Promise<DraftRecord> {
  await repository.withTransaction((tx) => tx.insertDraft({ draft }));
  return draft;
}

export function draftsSuite({ test }: SuiteContext): void {
  describe('Drafts', () => {
    test('inserts a draft, finds it, and updates its mutable fields only', async ({ repository }) => {
      const project = await seedProject(repository);
      const draft = await seedDraft(repository, aDraft(project, { description: 'ünïcode ✓' }));
      expect(await repository.findDraft({ draftId: draft.id })).toEqual(draft);
      expect(await repository.findDraft({ draftId: randomUUID() })).toBeNull();
      const changed: DraftRecord = {
        ...draft,
        title: 'Another title',
        description: null,
        state: 'published',
        changesetId: randomUUID(),
        updatedAt: BASE_TIME + 9,
        // Immutable: ignored by the update.
        createdAt: BASE_TIME + 100,
        authorKeyId: null,
      };
      await repository.withTransaction((tx) => tx.updateDraft({ draft: changed }));
      expect(await repository.findDraft({ draftId: draft.id })).toEqual({
        ...changed,
        createdAt: draft.createdAt,
        authorKeyId: draft.authorKeyId,
      });
    });

    test('lists a project’s drafts newest first, by state, paged by keyset; counts by state', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository, { accountId: project.accountId });
      const drafts: DraftRecord[] = [];
      for (let i = 0; i < 5; i++) {
        drafts.push(
          await seedDraft(
            repository,
            aDraft(project, {
              createdAt: BASE_TIME + (i < 2 ? 0 : i),
              state: i % 2 === 0 ? 'open' : 'closed',
            }),
          ),
        );
      }
      await seedDraft(repository, aDraft(other));
      const newestFirst = [...drafts].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
      expect(await repository.listDrafts({ projectId: project.id, limit: 10 })).toEqual(newestFirst);
      const first = await repository.listDrafts({ projectId: project.id, limit: 2 });
      expect(first).toEqual(newestFirst.slice(0, 2));
      const last = first.at(-1)!;
      expect(
        await repository.listDrafts({
          projectId: project.id,
          limit: 10,
          after: { createdAt: last.createdAt, id: last.id },
        }),
      ).toEqual(newestFirst.slice(2));
      const open = newestFirst.filter((d) => d.state === 'open');
      expect(await repository.listDrafts({ projectId: project.id, state: 'open', limit: 10 })).toEqual(open);
      expect(
        await repository.listDrafts({
          projectId: project.id,
          state: 'open',
          limit: 10,
          after: { createdAt: open[0]!.createdAt, id: open[0]!.id },
        }),
      ).toEqual(open.slice(1));
      expect(await repository.countDrafts({ projectId: project.id, state: 'open' })).toBe(3);
      expect(await repository.countDrafts({ projectId: project.id, state: 'closed' })).toBe(2);
      expect(await repository.countDrafts({ projectId: project.id, state: 'published' })).toBe(0);
    });

    test('keeps one row per file of a draft: put replaces it whole, seq order, paged', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const draft = await seedDraft(repository, aDraft(project));
      const other = await seedDraft(repository, aDraft(project));
      const a = aDraftFile(draft.id, { seq: 0, filename: 'z.md' });
      const b = aDraftFile(draft.id, {
        seq: 1,
        filename: 'a/ファイル.md',
        op: 'move',
        to: 'b.md',
        content: null,
        metadataJson: null,
        baseEtag: null,
      });
      const c = aDraftFile(draft.id, {
        seq: 2,
        filename: 'gone.md',
        op: 'delete',
        content: null,
        metadataJson: null,
      });
      await repository.withTransaction(async (tx) => {
        for (const file of [a, b, c, aDraftFile(other.id)]) await tx.putDraftFile({ file });
      });
      expect(await repository.listDraftFiles({ draftId: draft.id, limit: 10 })).toEqual([a, b, c]);
      expect(await repository.listDraftFiles({ draftId: draft.id, limit: 1, afterSeq: 0 })).toEqual([b]);
      const edited: DraftFileRecord = {
        ...a,
        op: 'edit',
        content: 'edited\n',
        metadataJson: null,
        baseEtag: '"x-2"',
      };
      await repository.withTransaction((tx) => tx.putDraftFile({ file: edited }));
      expect(await repository.findDraftFile({ draftId: draft.id, filename: 'z.md' })).toEqual(edited);
      expect(await repository.findDraftFile({ draftId: draft.id, filename: 'nope.md' })).toBeNull();
      expect(await repository.listDraftFiles({ draftId: draft.id, limit: 10 })).toEqual([edited, b, c]);
    });

    test('keeps reviews oldest first, at most limit; a rolled-back draft leaves nothing', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const key = await seedApiKey(repository, { accountId: project.accountId });
      const draft = await seedDraft(repository, aDraft(project));
      const review = (createdAt: number, verdict: DraftReviewRecord['verdict']): DraftReviewRecord => ({
        id: randomUUID(),
        draftId: draft.id,
        verdict,
        comment: `looks ${verdict}`,
        keyId: key.id,
        createdAt,
      });
      const later = review(BASE_TIME + 2, 'approve');
      const earlier = review(BASE_TIME + 1, 'request_changes');
      await repository.withTransaction(async (tx) => {
        await tx.insertDraftReview({ review: later });
        await tx.insertDraftReview({ review: earlier });
      });
      expect(await repository.listDraftReviews({ draftId: draft.id, limit: 10 })).toEqual([earlier, later]);
      expect(await repository.listDraftReviews({ draftId: draft.id, limit: 1 })).toEqual([earlier]);
      const doomed = aDraft(project);
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.insertDraft({ draft: doomed });
          await tx.putDraftFile({ file: aDraftFile(doomed.id) });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await repository.findDraft({ draftId: doomed.id })).toBeNull();
      expect(await repository.listDraftFiles({ draftId: doomed.id, limit: 10 })).toEqual([]);
    });
  });
}
