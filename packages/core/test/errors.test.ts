import { describe, expect, it } from 'vitest';
import {
  BlobNotFoundError,
  ContentTooLargeError,
  FilenameTakenError,
  isMdStoreError,
  isRecordConflict,
  MdStoreError,
  mdStoreError,
  ProjectNotFoundError,
  RecordConflictError,
  StoreUnavailableError,
} from '../src/errors.js';
import { RequestRateLimitedError, refusedBudgetStatus } from '../src/use-cases/authentication.js';
import { createFixture, textStream } from './support/fixture.js';

/**
 * Errors are recognised by code, never by class: an app (or a test sandbox) can hold two copies of
 * the core, an adapter throwing the errors of one and the use cases checking them with the other.
 */
describe('errors of another copy of the core', async () => {
  // A second instance of the module, as a second copy of the package in node_modules would be.
  // @ts-expect-error: TypeScript does not resolve a module id with a query; Vite loads it as a new module.
  const other = (await import('../src/errors.js?another-copy')) as typeof import('../src/errors.js');

  it('is a second copy indeed: its classes are not these', () => {
    expect(other.RecordConflictError).not.toBe(RecordConflictError);
    expect(new other.RecordConflictError('filename')).not.toBeInstanceOf(MdStoreError);
  });

  it('are recognised by code, whatever copy made them', () => {
    const conflict = new other.RecordConflictError('filename');
    expect(isMdStoreError(conflict)).toBe(true);
    expect(isMdStoreError(conflict, 'RECORD_CONFLICT')).toBe(true);
    expect(isMdStoreError(conflict, 'FILENAME_TAKEN')).toBe(false);
    expect(isRecordConflict(conflict, 'filename')).toBe(true);
    expect(isRecordConflict(conflict, 'project_name')).toBe(false);
    expect(other.isMdStoreError(new FilenameTakenError('a.md'), 'FILENAME_TAKEN')).toBe(true);
  });

  it('are not faked by a plain object or error carrying a code', () => {
    expect(isMdStoreError({ code: 'RECORD_CONFLICT', rule: 'filename' })).toBe(false);
    expect(isMdStoreError(Object.assign(new Error('x'), { code: 'FILENAME_TAKEN' }))).toBe(false);
    expect(isMdStoreError(null)).toBe(false);
    expect(isMdStoreError('RECORD_CONFLICT')).toBe(false);
  });

  it('a store conflict thrown by another copy still reaches the caller as FILENAME_TAKEN', async () => {
    const { store } = createFixture({
      wrapRecords: (inner) =>
        new Proxy(inner, {
          get: (target, name, receiver) =>
            name !== 'withTransaction'
              ? Reflect.get(target, name, receiver)
              : (work: Parameters<typeof target.withTransaction>[0]) =>
                  target.withTransaction(async (tx) => {
                    // The name is free when the upload checks it, and taken when it commits.
                    const outcome = await work(
                      new Proxy(tx, {
                        get: (txTarget, method, txReceiver) =>
                          method !== 'insertFile'
                            ? Reflect.get(txTarget, method, txReceiver)
                            : async () => {
                                throw new other.RecordConflictError('filename');
                              },
                      }),
                    );
                    return outcome;
                  }),
        }),
    });
    const created = await store.accounts.create({ name: 'copies' });
    const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
    const upload = store.files.upload({
      principal,
      projectId: created.defaultProject.id,
      filename: 'a.md',
      content: textStream('# a'),
    });
    await expect(upload).rejects.toMatchObject({ code: 'FILENAME_TAKEN' });
  });

  it("a refused request's budget is read by code, whatever copy refused it", async () => {
    type Authentication = typeof import('../src/use-cases/authentication.js');
    // @ts-expect-error: as above, a second instance of the module.
    const auth = (await import('../src/use-cases/authentication.js?another-copy')) as Authentication;
    const status = { limit: 10, remaining: 0, resetAtSeconds: 1_800_000_000 };
    const refused = new auth.RequestRateLimitedError(30, status);
    expect(refused).not.toBeInstanceOf(RequestRateLimitedError);
    expect(refusedBudgetStatus(refused)).toEqual(status);
    // A refusal without a budget (a blocked address) and any other error report none.
    expect(refusedBudgetStatus(new other.RateLimitedError(30))).toBeUndefined();
    expect(refusedBudgetStatus(new other.FilenameTakenError('a.md'))).toBeUndefined();
    expect(
      refusedBudgetStatus(Object.assign(new Error('x'), { code: 'RATE_LIMITED', status })),
    ).toBeUndefined();
  });
});

/**
 * Issue 23: the errors that carry only a message are one type, made from one table of messages by code.
 * The names the classes had still make them (with or without `new`) and still recognise them, by code.
 */
describe('errors from the table of codes', () => {
  it('are plain MdStoreErrors with their code and the message of the table', () => {
    const error = mdStoreError('FILENAME_TAKEN', { filename: 'a.md' });
    expect(Object.getPrototypeOf(error)).toBe(MdStoreError.prototype);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('FILENAME_TAKEN');
    expect(error.message).toBe("File with name 'a.md' already exists");
    expect(error.name).toBe('MdStoreError');
    expect(error.filename).toBe('a.md');
    expect(isMdStoreError(error, 'FILENAME_TAKEN')).toBe(true);
  });

  it('the old names make the same error, called with or without new', () => {
    const made = [
      new FilenameTakenError('a.md'),
      (FilenameTakenError as (f: string) => MdStoreError)('a.md'),
    ];
    for (const error of made) {
      expect(Object.getPrototypeOf(error)).toBe(MdStoreError.prototype);
      expect(error).toMatchObject({
        code: 'FILENAME_TAKEN',
        message: "File with name 'a.md' already exists",
      });
    }
    expect(new ProjectNotFoundError('p')).toMatchObject({ message: 'Project not found', projectId: 'p' });
    expect(new BlobNotFoundError('b', 'k')).toMatchObject({ code: 'BLOB_NOT_FOUND', bucket: 'b', key: 'k' });
    expect(new ContentTooLargeError(10).message).toBe('File too large: the maximum size is 10 bytes');
  });

  it('instanceof with an old name recognises by code, across copies of the core', async () => {
    // @ts-expect-error: as above, a second instance of the module.
    const other = (await import('../src/errors.js?table-copy')) as typeof import('../src/errors.js');
    expect(new other.FilenameTakenError('a.md')).toBeInstanceOf(FilenameTakenError);
    expect(mdStoreError('FILENAME_TAKEN', { filename: 'a.md' })).toBeInstanceOf(FilenameTakenError);
    expect(mdStoreError('FILE_NOT_FOUND', { filename: 'a.md' })).not.toBeInstanceOf(FilenameTakenError);
    expect(new RecordConflictError('filename')).not.toBeInstanceOf(StoreUnavailableError);
    expect(Object.assign(new Error('x'), { code: 'FILENAME_TAKEN' })).not.toBeInstanceOf(FilenameTakenError);
  });

  it('a store failure keeps its own message and its cause', () => {
    const cause = new Error('ECONNRESET');
    const error = new StoreUnavailableError('The database went away', { cause });
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', message: 'The database went away', cause });
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });
});
