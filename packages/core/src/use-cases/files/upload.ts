import { parseSha256Hex } from '../../conditional/index.js';
import { FilenameTakenError, isRecordConflict, MalformedInputError } from '../../errors.js';
import type { ByteStream } from '../../ports/blobs.js';
import { checkUploadFilename, digestMismatch, parseUploadMetadataField } from '../../validation/schemas.js';
import { assertPathInScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type DeferredBody, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { storeContent } from './content.js';
import { lockActiveProject, withCounterChange } from './shared.js';
import { createFileStep } from './steps.js';

type MaybePromise<T> = T | Promise<T>;

/** The `file` part of an upload form, handed over as soon as its header has been read. */
export interface UploadPart {
  readonly filename: string;
  /** The part's bytes; ends only once the whole form has been read and found well-formed. */
  readonly content: ByteStream;
  /** A form field: a string when it came before the file, else a promise settled at the form's end. */
  readonly metadata?: MaybePromise<string | undefined>;
  /** The `sha256` form field (extensions §2), same timing as `metadata`. */
  readonly sha256?: MaybePromise<string | undefined>;
}

export type UploadFileInput = {
  readonly principal: Principal;
  readonly projectId: string;
  readonly signal?: AbortSignal;
} & (
  | UploadPart
  | {
      /** The form (HTTP), read once the project is known to exist and belong to the caller. */
      readonly form: DeferredBody<Promise<UploadPart>>;
    }
);

const SHA256_LOC = ['body', 'sha256'] as const;

/** The upload's `sha256` form field: 64 lower-case hex digits (else 400, `value_error`). */
function parseSha256Field(value: string): string {
  const field = parseSha256Hex(value);
  if (field.kind !== 'sha-256') {
    throw new MalformedInputError([
      {
        loc: SHA256_LOC,
        msg: 'Value error, must be the SHA-256 of the content as 64 lower-case hex digits',
        type: 'value_error',
      },
    ]);
  }
  return field.hex;
}

const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

/**
 * Upload: the project is checked before the form is read; the filename and a duplicate (409) are judged
 * from the part's header before its content is read; then the content streams in (inline or to the blob
 * store) and one transaction adds the record, its first revision and the project's counters. Of
 * concurrent uploads of one name the store's unique rule lets exactly one commit.
 */
export async function uploadFile(ctx: MdStoreContext, input: UploadFileInput): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const form = 'form' in input ? input.form : deferred(Promise.resolve<UploadPart>(input));
  form.check();
  const part = await form.read();
  checkUploadFilename(part.filename);
  assertPathInScope(input.principal, part.filename);
  // A field that came before the file is judged now, once; a later one once the form has been read.
  const earlyMetadata = isPromise(part.metadata)
    ? undefined
    : { value: parseUploadMetadataField(part.metadata) };
  if (await ctx.records.findFile({ projectId: project.id, filename: part.filename })) {
    throw new FilenameTakenError(part.filename);
  }
  const fileId = ctx.ids.uuid();
  const declaredSha256 = part.sha256 !== undefined && !isPromise(part.sha256) ? part.sha256 : undefined;
  const expected = declaredSha256 === undefined ? undefined : parseSha256Field(declaredSha256);
  try {
    return await storeContent(
      ctx,
      { project, fileId },
      {
        content: part.content,
        loc: ['body', 'file'],
        filename: part.filename,
        expectedSha256: expected === undefined ? undefined : [{ hex: expected, loc: SHA256_LOC }],
        signal: input.signal,
      },
      async () => {
        const metadata = earlyMetadata ? earlyMetadata.value : parseUploadMetadataField(await part.metadata);
        const lateSha256 = declaredSha256 === undefined ? await part.sha256 : undefined;
        return { metadata, lateSha256 };
      },
      async (tx, stored, { metadata, lateSha256 }) => {
        if (lateSha256 !== undefined) {
          if (parseSha256Field(lateSha256) !== stored.sha256) throw digestMismatch(SHA256_LOC);
        }
        const locked = await lockActiveProject(tx, input.principal, project.id);
        const at = notBefore(ctx.clock.now(), locked.updatedAt);
        const step = await createFileStep(ctx, tx, {
          project: locked,
          fileId,
          filename: part.filename,
          stored,
          metadataJson: metadata === null ? null : JSON.stringify(metadata),
          at,
          author: input.principal.keyId,
        });
        await tx.updateProject({ project: withCounterChange(ctx, locked, step.counters, at) });
        const file = step.file!;
        return { result: toFileView(file, locked, ctx.blobs.scheme), doomed: step.doomed };
      },
    );
  } catch (error) {
    if (isRecordConflict(error, 'filename')) {
      throw new FilenameTakenError(part.filename);
    }
    throw error;
  }
}
