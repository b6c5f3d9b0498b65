import type { ChangeEventInput, ChangeEventRecord } from '../model/changes.js';
import type { ChangeEventQuery, ChangeFeedHead, ChangeFeedReader, ChangeNotifier } from '../ports/changes.js';

/**
 * A TEST DOUBLE of the change feed (extensions §7): events appended in memory with a per-account `seq`,
 * read as the records store will, and a notifier that calls its listeners at once. It stands in for the
 * outbox and notifier of the `feed` branch until the merge; it is no implementation of either.
 */
export class ChangeFeedDouble implements ChangeFeedReader, ChangeNotifier {
  private readonly events: ChangeEventRecord[] = [];
  private readonly listeners = new Set<(accountId: string) => void>();
  private readonly lastSeq = new Map<string, number>();

  /** Appends an event (the next `seq` of its account) and notifies; returns it. */
  append(
    input: Partial<ChangeEventInput> & Pick<ChangeEventInput, 'accountId' | 'projectId'>,
  ): ChangeEventRecord {
    const seq = (this.lastSeq.get(input.accountId) ?? 0) + 1;
    this.lastSeq.set(input.accountId, seq);
    const event: ChangeEventRecord = {
      type: 'file.created',
      filename: 'notes.md',
      from: null,
      revision: 1,
      etag: '"r1"',
      sizeBytes: 5,
      sha256: 'a'.repeat(64),
      changesetId: null,
      at: Date.now(),
      ...input,
      seq,
    };
    this.events.push(event);
    for (const listener of this.listeners) listener(event.accountId);
    return event;
  }

  async findChangeFeedHead(q: { accountId: string }): Promise<ChangeFeedHead> {
    const seqs = this.events.filter((e) => e.accountId === q.accountId).map((e) => e.seq);
    return { lastSeq: Math.max(0, ...seqs), prunedThrough: 0 };
  }

  async listChangeEvents(q: ChangeEventQuery): Promise<ChangeEventRecord[]> {
    return this.events
      .filter(
        (e) =>
          e.accountId === q.accountId &&
          e.seq > q.afterSeq &&
          (q.projectIds === undefined || q.projectIds.includes(e.projectId)),
      )
      .slice(0, q.limit);
  }

  subscribe(listener: (accountId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
