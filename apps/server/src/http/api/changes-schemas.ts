import * as v from 'valibot';

/** The change feed's shapes (extensions §7). */

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

export const ChangeEvent = v.object({
  seq: described(v.number(), 'Grows with commit order within the account (gaps allowed).'),
  type: v.picklist([
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
  ]),
  project_id: v.string(),
  filename: described(v.nullable(v.string()), 'The file after the change; null for a project event.'),
  from: described(
    v.nullable(v.string()),
    'The old name of a moved file (or the old path of a moved attachment).',
  ),
  revision: v.nullable(v.number()),
  etag: v.nullable(v.string()),
  size_bytes: v.nullable(v.number()),
  sha256: v.nullable(v.string()),
  changeset_id: v.nullable(v.string()),
  date: described(v.string(), 'When the change committed (ISO 8601).'),
});

export const ChangeList = v.object({
  changes: v.array(ChangeEvent),
  next_since: described(v.number(), 'The `since` of the next read.'),
});

export const CHANGES_COMPONENTS = { ChangeEvent, ChangeList } as const;
