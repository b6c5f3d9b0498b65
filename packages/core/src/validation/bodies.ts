import * as v from 'valibot';
import type { EditRequestSchema } from '../markdown/edit-schema.js';
import { RevisionSchema } from './history.js';
import { DescriptionSchema, MetadataSchema, NameSchema, SETTING_SCHEMAS, UuidSchema } from './schemas.js';

/**
 * The request bodies of the interface as valibot schemas, one place for the HTTP edge (its route
 * descriptions and OpenAPI document) and for embedders (the facade's input types below come from them
 * with `v.InferInput`). The use cases check a body with their own parsers, which give the interface's
 * exact errors (400 for a missing field, 422 at the field, unknown fields ignored); these schemas say the
 * same in JSON Schema terms.
 */

const Metadata = v.pipe(
  v.nullable(MetadataSchema),
  v.description('A custom JSON object (at most 64 KiB as compact JSON, 32 levels), or null.'),
);

export const ProjectSettingsInputSchema = v.pipe(
  v.strictObject({
    require_if_match: v.optional(
      v.pipe(
        SETTING_SCHEMAS.require_if_match,
        v.description('Writes to an existing file need If-Match (428).'),
      ),
    ),
    keep_revisions: v.optional(SETTING_SCHEMAS.keep_revisions),
    trash_retention_days: v.optional(SETTING_SCHEMAS.trash_retention_days),
    keep_revisions_days: v.optional(SETTING_SCHEMAS.keep_revisions_days),
  }),
  v.description('Any subset of the settings; omitted keys keep their value.'),
);

export const ProjectCreateSchema = v.looseObject({
  name: NameSchema,
  description: v.optional(DescriptionSchema),
  settings: v.optional(ProjectSettingsInputSchema),
});

export const ProjectUpdateSchema = v.pipe(
  v.looseObject({
    name: v.optional(NameSchema),
    description: v.optional(DescriptionSchema),
    settings: v.optional(ProjectSettingsInputSchema),
  }),
  v.description('At least one of name, description, settings (else 400).'),
);

export const MetadataUpdateSchema = v.object({ metadata: Metadata });

const Target = v.pipe(v.string(), v.description('The new filename (the upload rules: 400, or 415).'));
export const RestoreRequestSchema = v.object({ revision: RevisionSchema });
export const MoveRequestSchema = v.object({
  to: Target,
  rewrite_links: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Extensions §9: rewrite every link to the file in other files (and its own relative links when its folder changes), in the same transaction; the answer adds `rewritten`.',
      ),
    ),
  ),
  dry_run: v.optional(
    v.pipe(
      v.boolean(),
      v.description('With `rewrite_links`: change nothing, answer what would be rewritten.'),
    ),
  ),
});
export const CopyRequestSchema = v.object({
  to: Target,
  project_id: v.optional(
    v.pipe(
      v.nullable(UuidSchema),
      v.description('Another project of the account; absent or null: this one.'),
    ),
  ),
});

/** Render body (extensions §11): unsaved text rendered as the file it would be. */
export const RenderRequestSchema = v.object({
  content: v.pipe(
    v.string(),
    v.description('The Markdown to render (at most the file size limit, in UTF-8 bytes, else 413).'),
  ),
  filename: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'The file the text is rendered as (its folder resolves relative links; `.mdx` is shown as source). Default `untitled.md`.',
      ),
    ),
  ),
});

export const TrashRestoreSchema = v.object({
  to: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        "Restore under this name (the upload rules: 400, or 415); absent or null: the item's own.",
      ),
    ),
  ),
});

const SEARCH_FIELDS = {
  query: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        'Words (all must occur), "phrases", -exclusions, prefix*, a OR b; at most 1 000 code points, 32 words.',
      ),
    ),
  ),
  filter: v.optional(
    v.pipe(
      v.nullable(v.record(v.string(), v.unknown())),
      v.description(
        'A condition {field, op, value} or {"and": [...]}, {"or": [...]}, {"not": FILTER}; at most 50 conditions and 8 levels.',
      ),
    ),
  ),
  sort: v.optional(
    v.pipe(
      v.nullable(v.picklist(['relevance', 'filename', 'created_date', 'updated_date', 'size_bytes'])),
      v.description('Default: relevance with a query, else filename.'),
    ),
  ),
  order: v.optional(v.nullable(v.picklist(['asc', 'desc']))),
  limit: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
      v.description('Default 20.'),
    ),
  ),
  cursor: v.optional(v.pipe(v.nullable(v.string()), v.description('The next_cursor of the previous page.'))),
  mode: v.optional(
    v.pipe(
      v.nullable(v.picklist(['text', 'semantic', 'hybrid'])),
      v.description(
        'Default text (the full-text search). semantic ranks by meaning (embedded chunks), hybrid fuses both rankings by reciprocal rank (k = 60); both need a query, sort by relevance and need embeddings on (else 422 at ["body","mode"]).',
      ),
    ),
  ),
};

export const SearchRequestSchema = v.looseObject(SEARCH_FIELDS);

export const SearchAllRequestSchema = v.looseObject({
  ...SEARCH_FIELDS,
  project_ids: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.array(UuidSchema), v.maxLength(100))),
      v.description(
        "The projects to search (default: every active project of the account; another account's: 403).",
      ),
    ),
  ),
});

/**
 * The input type of a body schema for a typed caller: its known fields only. (The wire accepts and
 * ignores unknown fields, `looseObject`; a typed caller writing one has made a typo, so it does not
 * compile.)
 */
type Fields<S> =
  S extends v.SchemaWithPipe<infer P>
    ? Fields<P[0]>
    : S extends
          | v.LooseObjectSchema<infer E, infer _M>
          | v.ObjectSchema<infer E, infer _M>
          | v.StrictObjectSchema<infer E, infer _M>
      ? v.InferInput<v.ObjectSchema<E, undefined>>
      : never;

export type ProjectSettingsInput = Fields<typeof ProjectSettingsInputSchema>;
export type ProjectCreateInput = Fields<typeof ProjectCreateSchema>;
export type ProjectUpdateInput = Fields<typeof ProjectUpdateSchema>;
export type MetadataUpdateInput = Fields<typeof MetadataUpdateSchema>;
export type RestoreRequestInput = Fields<typeof RestoreRequestSchema>;
export type MoveRequestInput = Fields<typeof MoveRequestSchema>;
export type CopyRequestInput = Fields<typeof CopyRequestSchema>;
export type RenderRequestInput = Fields<typeof RenderRequestSchema>;
export type TrashRestoreInput = Fields<typeof TrashRestoreSchema>;
export type SearchRequestInput = Fields<typeof SearchRequestSchema>;
export type SearchAllRequestInput = Fields<typeof SearchAllRequestSchema>;
/** A `PATCH` body: `{ edits: [...], dry_run? }` (the schema is the edit domain's). */
export type EditRequestInput = v.InferInput<typeof EditRequestSchema>;
