import type { ChangeEventRecord, ChangeEventType } from '../../model/changes.js';

/** Every event type of extensions §7. */
export const CHANGE_EVENT_TYPES: readonly ChangeEventType[] = Object.freeze([
  'file.created',
  'file.updated',
  'file.moved',
  'file.deleted',
  'file.restored',
  'attachment.created',
  'attachment.updated',
  'attachment.deleted',
  'attachment.moved',
  'project.created',
  'project.updated',
  'project.deleted',
  'draft.opened',
  'draft.updated',
  'draft.published',
  'draft.closed',
]);

/**
 * Whether a webhook's filter is known: an event type, or a family with a wildcard (`file.*`,
 * `project.*`, `*`). Anything else would silently match nothing.
 */
export function isEventFilter(filter: string): boolean {
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return CHANGE_EVENT_TYPES.some((type) => type.startsWith(filter.slice(0, -1)));
  return (CHANGE_EVENT_TYPES as readonly string[]).includes(filter);
}

/** Whether an event passes a webhook's filters (none: every event). */
export function matchesEventFilters(filters: readonly string[], type: ChangeEventType): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (filter) =>
      filter === '*' || filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1))),
  );
}

/** An event as the interface shows it (extensions §7): the feed's `changes` items and a webhook's `data`. */
export interface ChangeEventJson {
  readonly seq: number;
  readonly type: ChangeEventType;
  readonly project_id: string;
  readonly filename: string | null;
  readonly from: string | null;
  readonly revision: number | null;
  readonly etag: string | null;
  readonly size_bytes: number | null;
  readonly sha256: string | null;
  readonly changeset_id: string | null;
  readonly date: string;
}

/** The §7 JSON of an event: a pure function, shared by the feed, SSE and webhooks. */
export function changeEventView(event: ChangeEventRecord): ChangeEventJson {
  return {
    seq: event.seq,
    type: event.type,
    project_id: event.projectId,
    filename: event.filename,
    from: event.from,
    revision: event.revision,
    etag: event.etag,
    size_bytes: event.sizeBytes,
    sha256: event.sha256,
    changeset_id: event.changesetId,
    date: new Date(event.at).toISOString(),
  };
}

/** The body of a delivery (Standard Webhooks): `{"type", "timestamp", "data": EVENT}`. */
export function webhookPayload(event: ChangeEventRecord): string {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date(event.at).toISOString(),
    data: changeEventView(event),
  });
}

/** The `webhook-id` of an event's delivery to one webhook: the same on every retry. */
export const webhookMessageId = (webhookId: string, seq: number): string => `msg_${webhookId}_${seq}`;
