import * as v from 'valibot';
import {
  AttachmentPathIsFileError,
  InvalidInputError,
  MalformedInputError,
  UnsupportedExtensionError,
  type ValidationIssue,
} from '../errors.js';
import { type ProjectSettings, TIERS, type Tier } from '../model/records.js';
import { ISSUE, issueAt, toValidationIssues } from './issues.js';
import {
  countCodePoints,
  hasControlCharacter,
  hasNulCharacter,
  isWellFormedUnicode,
  isWhiteSpaceOnly,
  utf8ByteLength,
} from './text.js';

/** The rules of both spec documents, each written once. */
export const LIMITS = {
  nameMaxCodePoints: 255,
  /** Extensions §1: each `/`-separated segment 1-255 bytes of UTF-8, the whole name at most 1024. */
  filenameSegmentMaxBytes: 255,
  filenameMaxBytes: 1024,
  metadataMaxBytes: 64 * 1024,
  metadataMaxDepth: 32,
  allowedExtensions: ['.md', '.mdx'],
} as const;

const PARSE_CONFIG = { abortPipeEarly: true } as const;

/** A project (or account) name: 1-255 code points, kept exactly as given. */
export const NameSchema = v.pipe(
  v.string(ISSUE.stringType.msg),
  v.check(isWellFormedUnicode, ISSUE.notUnicode.msg),
  v.check((name) => countCodePoints(name) >= 1, ISSUE.tooShort.msg),
  v.check((name) => countCodePoints(name) <= LIMITS.nameMaxCodePoints, ISSUE.tooLong.msg),
  v.check((name) => !hasControlCharacter(name), ISSUE.controlChars.msg),
  v.check((name) => !isWhiteSpaceOnly(name), ISSUE.blank.msg),
  // The checks above in JSON Schema terms, for the OpenAPI document (a no-op when parsing).
  v.metadata({ minLength: 1, maxLength: LIMITS.nameMaxCodePoints }),
);

/** Any length, may be empty or null. */
export const DescriptionSchema = v.nullable(
  v.pipe(
    v.string(ISSUE.stringType.msg),
    v.check(isWellFormedUnicode, ISSUE.notUnicode.msg),
    v.check((text) => !hasNulCharacter(text), ISSUE.nulChar.msg),
  ),
);

export const TierSchema = v.picklist(TIERS);

/** Canonical UUID text, any case; the domain keeps ids in lower case. */
export const UuidSchema = v.pipe(
  v.string(ISSUE.uuid.msg),
  v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, ISSUE.uuid.msg),
  v.toLowerCase(),
  v.metadata({ format: 'uuid' }),
);

export type JsonObject = { [key: string]: unknown };

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Nesting depth of objects and arrays (the top-level object is 1), computed without recursion. */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(node)) pending.push({ node: child, depth: depth + 1 });
  }
  return false;
}

/** A metadata object: at most 64 KiB once serialised and at most 32 levels deep. */
export const MetadataSchema = v.pipe(
  v.custom<JsonObject>(isJsonObject, ISSUE.dictType.msg),
  v.check((value) => !jsonDepthExceeds(value, LIMITS.metadataMaxDepth), ISSUE.metadataTooDeep.msg),
  v.check(
    (value) => utf8ByteLength(JSON.stringify(value)) <= LIMITS.metadataMaxBytes,
    ISSUE.metadataTooLarge.msg,
  ),
  v.metadata({
    type: 'object',
    additionalProperties: true,
    description: 'A JSON object, at most 64 KiB as compact JSON and 32 levels deep.',
  }),
);

const integerIn = (min: number, max: number) =>
  v.pipe(
    v.number('Input should be a valid integer'),
    v.integer('Input should be a valid integer'),
    v.minValue(min, `Input should be greater than or equal to ${min}`),
    v.maxValue(max, `Input should be less than or equal to ${max}`),
  );

/** The settings of extensions §2/§5, as the API names them, with their ranges. */
export const SETTING_SCHEMAS = {
  require_if_match: v.boolean('Input should be a valid boolean'),
  keep_revisions: integerIn(1, 1000),
  trash_retention_days: integerIn(0, 365),
  keep_revisions_days: integerIn(0, 3650),
} as const;

type SettingName = keyof typeof SETTING_SCHEMAS;
const SETTING_FIELDS: Record<SettingName, keyof ProjectSettings> = {
  require_if_match: 'requireIfMatch',
  keep_revisions: 'keepRevisions',
  trash_retention_days: 'trashRetentionDays',
  keep_revisions_days: 'keepRevisionsDays',
};

/** `settings`: any subset of the known keys; unknown keys, wrong types or ranges are 422 at their key. */
function parseSettings(value: unknown): Partial<ProjectSettings> {
  const loc = ['body', 'settings'];
  if (!isJsonObject(value)) throw new InvalidInputError([issueAt(loc, 'dictType')]);
  const settings: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const [key, raw] of Object.entries(value)) {
    if (!Object.hasOwn(SETTING_SCHEMAS, key)) {
      issues.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    const result = v.safeParse(SETTING_SCHEMAS[key as SettingName], raw, PARSE_CONFIG);
    if (result.success) settings[SETTING_FIELDS[key as SettingName]] = result.output;
    else issues.push(...toValidationIssues(result.issues, [...loc, key]));
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  return settings as Partial<ProjectSettings>;
}

const CreateProjectSchema = v.looseObject({
  name: NameSchema,
  description: v.optional(DescriptionSchema, null),
});

const UpdateProjectSchema = v.looseObject({
  name: v.optional(NameSchema),
  description: v.optional(DescriptionSchema),
});

export interface CreateProjectInput {
  readonly name: string;
  readonly description: string | null;
  readonly settings: Partial<ProjectSettings>;
}
export interface UpdateProjectInput {
  readonly name?: string;
  readonly description?: string | null;
  readonly settings?: Partial<ProjectSettings>;
}

function requireObjectBody(body: unknown): asserts body is JsonObject {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
}

function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, prefix: (string | number)[]) {
  const result = v.safeParse(schema, input, PARSE_CONFIG);
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, prefix));
  return result.output as v.InferOutput<S>;
}

/** Create Project body: `name` missing is 400, every other field problem 422; unknown fields ignored. */
export function parseCreateProjectBody(body: unknown): CreateProjectInput {
  requireObjectBody(body);
  if (!('name' in body)) throw new MalformedInputError([issueAt(['body', 'name'], 'missing')]);
  const { name, description } = parseOrThrow(CreateProjectSchema, body, ['body']);
  return { name, description, settings: 'settings' in body ? parseSettings(body.settings) : {} };
}

/**
 * Update Project body: at least one of `name`, `description`, `settings` (else 400); explicit null clears
 * the description; `{"settings": {}}` is a valid update that changes nothing but `updated_date`.
 */
export function parseUpdateProjectBody(body: unknown): UpdateProjectInput {
  requireObjectBody(body);
  if (!('name' in body) && !('description' in body) && !('settings' in body)) {
    throw new MalformedInputError([issueAt(['body'], 'noFieldGiven')]);
  }
  const parsed = parseOrThrow(UpdateProjectSchema, body, ['body']);
  const input: { name?: string; description?: string | null; settings?: Partial<ProjectSettings> } = {};
  if ('name' in body) input.name = parsed.name;
  if ('description' in body) input.description = parsed.description ?? null;
  if ('settings' in body) input.settings = parseSettings(body.settings);
  return input;
}

export function parseProjectId(projectId: unknown): string {
  return parseOrThrow(UuidSchema, projectId, ['path', 'project_id']);
}

export function parseAccountName(name: unknown): string {
  return parseOrThrow(NameSchema, name, ['name']);
}

export function parseTier(tier: unknown): Tier {
  const result = v.safeParse(TierSchema, tier);
  if (!result.success) {
    throw new InvalidInputError([
      { loc: ['tier'], type: 'enum', msg: "Input should be 'standard' or 'premium'" },
    ]);
  }
  return result.output;
}

/** Update File Metadata body `{ "metadata": object | null }`: every problem is 422. */
export function parseMetadataUpdateBody(body: unknown): JsonObject | null {
  requireObjectBody(body);
  if (!('metadata' in body)) throw new InvalidInputError([issueAt(['body', 'metadata'], 'missing')]);
  if (body.metadata === null) return null;
  return parseOrThrow(MetadataSchema, body.metadata, ['body', 'metadata']);
}

/** The upload's `metadata` form field, a string holding a JSON object: every problem is 400. */
export function parseUploadMetadataField(field: string | undefined): JsonObject | null {
  if (field === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(field);
  } catch {
    throw new MalformedInputError([issueAt(['body', 'metadata'], 'jsonInvalid')]);
  }
  const result = v.safeParse(MetadataSchema, value, PARSE_CONFIG);
  if (!result.success) throw new MalformedInputError(toValidationIssues(result.issues, ['body', 'metadata']));
  return result.output;
}

const FILENAME_FORBIDDEN = /[\\\u0000-\u001f\u007f]/;
const MARKDOWN_EXTENSION = /\.mdx?$/i;

type Loc = readonly (string | number)[];
const UPLOAD_FILENAME_LOC: Loc = ['body', 'file'];

/**
 * The 400 rules of a filename (product decisions, extensions §1): well-formed Unicode, 1-1024 bytes,
 * no `\` or control characters, `/`-separated segments that are neither empty nor `.`/`..`, each
 * 1-255 bytes, and no folder (a segment before the last) named like a Markdown file.
 */
function filenameIssue(filename: string, loc: Loc = UPLOAD_FILENAME_LOC): ValidationIssue | undefined {
  const at = (kind: Parameters<typeof issueAt>[1]) => issueAt(loc, kind);
  if (!isWellFormedUnicode(filename)) return at('notUnicode');
  const bytes = utf8ByteLength(filename);
  if (bytes < 1 || bytes > LIMITS.filenameMaxBytes) return at('filenameLength');
  if (FILENAME_FORBIDDEN.test(filename)) return at('filenameChars');
  const segments = filename.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') return at('filenameSegment');
    if (utf8ByteLength(segment) > LIMITS.filenameSegmentMaxBytes) return at('filenameLength');
  }
  if (segments.slice(0, -1).some((folder) => MARKDOWN_EXTENSION.test(folder))) return at('filenameFolder');
  return undefined;
}

/**
 * A folder a key is scoped to (extensions §14), as written with or without its closing `/`: the rules of
 * a filename for every segment, none named like a Markdown file. Answers the folder with its closing `/`,
 * or the problem at `loc`.
 */
export function parseFolderPrefix(
  written: string,
  loc: Loc,
): { readonly prefix: string } | { readonly issue: ValidationIssue } {
  const folder = written.endsWith('/') ? written.slice(0, -1) : written;
  const issue =
    filenameIssue(folder, loc) ??
    (folder.split('/').some((segment) => MARKDOWN_EXTENSION.test(segment))
      ? issueAt(loc, 'filenameFolder')
      : undefined);
  return issue ? { issue } : { prefix: `${folder}/` };
}

/** The last `/`-separated segment of a filename: the file's own name, without its folders. */
export const baseName = (filename: string): string => filename.slice(filename.lastIndexOf('/') + 1);

/** The extension of the last segment is `.md` or `.mdx`, in any case. */
export function hasAllowedExtension(filename: string): boolean {
  const name = baseName(filename);
  const dot = name.lastIndexOf('.');
  const extension = dot < 0 ? '' : name.slice(dot).toLowerCase();
  return (LIMITS.allowedExtensions as readonly string[]).includes(extension);
}

/**
 * A filename (of an upload; or, at `loc`, the `to` of a move or copy): the rules of `filenameIssue`
 * (else 400), an extension `.md` or `.mdx` in any case on the last segment (else 415), and a non-empty
 * name before it (else 400).
 */
export function checkUploadFilename(filename: string, loc: Loc = UPLOAD_FILENAME_LOC): void {
  const issue = filenameIssue(filename, loc);
  if (issue) throw new MalformedInputError([issue]);
  if (!hasAllowedExtension(filename)) throw new UnsupportedExtensionError(filename);
  if (baseName(filename).lastIndexOf('.') === 0)
    throw new MalformedInputError([issueAt(loc, 'filenameStem')]);
}

/**
 * An attachment's path (extensions §12): the filename rules of §1 but the extension (else 400 at `loc`),
 * any extension but `.md`/`.mdx` (those are files: 409), and a non-empty name before any extension.
 */
export function checkAttachmentPath(path: string, loc: Loc): void {
  const issue = filenameIssue(path, loc);
  if (issue) throw new MalformedInputError([issue]);
  if (hasAllowedExtension(path)) throw new AttachmentPathIsFileError(path);
  if (baseName(path).lastIndexOf('.') === 0) throw new MalformedInputError([issueAt(loc, 'filenameStem')]);
}

/** The content received does not have the SHA-256 the client declared (extensions §2, digests). */
export const digestMismatch = (loc: readonly (string | number)[]) =>
  new MalformedInputError([
    { loc, msg: 'Value error, the digest does not match the content received', type: 'digest_mismatch' },
  ]);
