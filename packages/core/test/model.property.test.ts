import { createHash } from 'node:crypto';
import {
  type BlobStore,
  createMdStore,
  type ErrorCode,
  type FileView,
  isMdStoreError,
  type MdStore,
  type Principal,
  type ProjectView,
  type RecordsRepository,
  wireBody,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { byCodePoint, filenameOutcome, isValidProjectName } from './support/reference-rules.js';
import { isWellFormedUtf8 } from './support/utf8-reference.js';

/**
 * Model-based test: random sequences of every project and file operation, from two accounts, against
 * the core on the memory adapters and a plain model of what the spec says should happen. The clock is
 * under the test's control and sometimes goes backwards. After every step the whole observable state of
 * both accounts is compared with the model, and the stores are checked for leftovers.
 */

const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 1000;
const MAX_COMMANDS = 40;
const MAX_FILE_BYTES = 64;
const START = Date.UTC(2024, 0, 15, 9, 30, 0, 123);
const UNKNOWN_ID = '3f0e2a44-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const encoder = new TextEncoder();

type Actor = 0 | 1;
type Outcome<T> = { code: 'OK'; value: T } | { code: ErrorCode };
type Expected<T = undefined> = { code: 'OK'; value: T } | { code: ErrorCode };

interface ModelFile {
  readonly filename: string;
  bytes: Uint8Array;
  /** 1 at upload, +1 on every write. */
  revision: number;
  /** The kept revisions, newest first (at most `KEEP_REVISIONS`): content version, bytes, metadata. */
  kept: KeptRevision[];
  /** Metadata as JSON text, so `__proto__` keys survive copies and comparisons. */
  metadata: string | null;
  readonly createdAt: number;
  updatedAt: number;
}

interface KeptRevision {
  readonly revision: number;
  readonly version: number;
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly metadata: string | null;
}

interface ModelProject {
  readonly id: string;
  readonly owner: Actor;
  name: string;
  description: string | null;
  readonly isDefault: boolean;
  active: boolean;
  readonly createdAt: number;
  updatedAt: number;
  readonly files: Map<string, ModelFile>;
}

interface Model {
  /** Every project of both accounts, in creation order (commands pick them by index). */
  readonly projects: ModelProject[];
  now: number;
  /** Content versions handed out so far (each content write makes a new one). */
  versions: number;
  /** Content up to this size is stored inline, larger content in the blob store. */
  readonly inlineMaxBytes: number;
}

/** The default `keep_revisions` of every project of the model. */
const KEEP_REVISIONS = 20;

/**
 * A write to a file: a new revision, with a new content version, the current one (metadata, move) or
 * that of an earlier revision (restore: the version is shared, not copied).
 */
function addRevision(model: Model, file: ModelFile, content: 'new' | 'same' | number): void {
  const version = content === 'new' ? ++model.versions : content === 'same' ? file.kept[0]!.version : content;
  file.revision++;
  const kept = {
    revision: file.revision,
    version,
    size: file.bytes.length,
    bytes: file.bytes,
    metadata: file.metadata,
  };
  file.kept = [kept, ...file.kept].slice(0, KEEP_REVISIONS);
}

/** Bytes kept only by earlier revisions: distinct versions other than the current one. */
function historyOf(file: ModelFile): number {
  const seen = new Set([file.kept[0]!.version]);
  let bytes = 0;
  for (const { version, size } of file.kept) {
    if (seen.has(version)) continue;
    seen.add(version);
    bytes += size;
  }
  return bytes;
}

interface Real {
  readonly store: MdStore;
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly principals: readonly [Principal, Principal];
  readonly clock: { value: number };
  /** The last `updatedAt` seen for each project, to prove it never goes backwards. */
  readonly lastSeen: Map<string, number>;
  /** The ETag each project showing these fields (as JSON, id first) had: equal fields, equal tag. */
  readonly etags: Map<string, string>;
}

/** How often each command ended in each outcome: printed with MDSTORE_PBT_STATS=1 to judge coverage. */
const tally = new Map<string, number>();
let currentCommand = '';

async function attempt<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  const outcome = await settle(run);
  const key = `${currentCommand} ${outcome.code}`;
  if (currentCommand) tally.set(key, (tally.get(key) ?? 0) + 1);
  return outcome;
}

async function settle<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { code: 'OK', value: await run() };
  } catch (error) {
    if (isMdStoreError(error)) return { code: error.code };
    throw error;
  }
}

async function readAll(content: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: number[] = [];
  for await (const chunk of content) parts.push(...chunk);
  return Uint8Array.from(parts);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const byCreationThenId = (a: ModelProject, b: ModelProject) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---------------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------------

/**
 * Which project a command targets: one of the caller's own projects (deleted ones included), any project
 * of either account (maybe with its id in upper case), an id that exists nowhere, or a malformed id.
 */
type ProjectRef =
  | { kind: 'own'; index: number }
  | { kind: 'known'; index: number; upper: boolean }
  | { kind: 'unknown' }
  | { kind: 'malformed' };

const projectRef: fc.Arbitrary<ProjectRef> = fc.oneof(
  { weight: 12, arbitrary: fc.nat().map((index) => ({ kind: 'own' as const, index })) },
  { weight: 6, arbitrary: fc.nat().map((index) => ({ kind: 'known' as const, index, upper: false })) },
  { weight: 1, arbitrary: fc.nat().map((index) => ({ kind: 'known' as const, index, upper: true })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'malformed' as const }) },
);
const actor: fc.Arbitrary<Actor> = fc.constantFrom(0, 1);

const GOOD_PROJECT_NAMES = [
  'p1',
  'p2',
  'P1',
  ' p1',
  'Default',
  '\u{1F600}',
  '\u{1F600}'.repeat(255),
  'caf\u00e9',
];
const BAD_PROJECT_NAMES = ['x'.repeat(256), '', '   ', '\u3000\u00a0', 'a\u0000b', 'tab\there', 'bad\ud800'];
const projectName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...GOOD_PROJECT_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_PROJECT_NAMES) },
);

const ABSENT = Symbol('absent');
const description = fc.constantFrom<unknown>(ABSENT, null, '', 'some text', 'caf\u00e9 \u{1F600}', 42);

const GOOD_FILENAMES = [
  'a.md',
  'A.md',
  'b.mdx',
  'notes.MD',
  'Doc.Mdx',
  '\u00e9.md',
  'e\u0301.md',
  '\u{1F600}.md',
  'a b.md',
  `${'y'.repeat(252)}.md`,
  'a/b.md',
  'guides/deep/setup.mdx',
];
const BAD_FILENAMES = [
  `${'y'.repeat(253)}.md`,
  'x.txt',
  'README',
  '.md',
  'a//b.md',
  'a.md/b.md',
  '../b.md',
  'a\\b.md',
  '',
  'tab\t.md',
];
const filename = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...GOOD_FILENAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_FILENAMES) },
);

/** A file of the target project (by index, when it has any), or a name from the pools. */
type FileRef = { kind: 'existing'; index: number } | { kind: 'named'; name: string };
const fileRef: fc.Arbitrary<FileRef> = fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((index) => ({ kind: 'existing' as const, index })) },
  { weight: 2, arbitrary: filename.map((name) => ({ kind: 'named' as const, name })) },
);

/** Content with its chunking; valid, empty, invalid UTF-8, exactly at the limit or over it. */
interface Content {
  readonly bytes: Uint8Array;
  readonly cuts: readonly number[];
}
const contentBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }).map((s) => encoder.encode(s)),
  },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constant(new Uint8Array()) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      encoder.encode('#'.repeat(MAX_FILE_BYTES)),
      encoder.encode('#'.repeat(MAX_FILE_BYTES + 1)),
      encoder.encode(`${'\u{1F600}'.repeat(16)}x`),
      Uint8Array.of(0xef, 0xbb, 0xbf, 0x23, 0x20, 0x68, 0x69),
      Uint8Array.of(0x61, 0xff),
      Uint8Array.of(0xc0, 0x80),
      Uint8Array.of(0xed, 0xa0, 0x80),
      Uint8Array.of(0xe2, 0x82),
      Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'grapheme-ascii', minLength: MAX_FILE_BYTES + 1, maxLength: 100 })
      .map((s) => encoder.encode(s)),
  },
);
const content: fc.Arbitrary<Content> = contentBytes.chain((bytes) =>
  fc
    .uniqueArray(fc.nat({ max: bytes.length }), { maxLength: 4 })
    .map((cuts) => ({ bytes, cuts: [...cuts].sort((a, b) => a - b) })),
);

async function* stream({ bytes, cuts }: Content): AsyncIterable<Uint8Array> {
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.slice(start, cut);
    start = cut;
  }
}

/** What the content rules say about it (judged on the whole body: generated content is never both). */
function contentOutcome(bytes: Uint8Array): ErrorCode | 'OK' {
  if (bytes.length === 0) return 'MALFORMED_INPUT';
  if (bytes.length > MAX_FILE_BYTES) return 'CONTENT_TOO_LARGE';
  return isWellFormedUtf8(bytes) ? 'OK' : 'MALFORMED_INPUT';
}

const METADATA_TEXTS = [
  '{"a":1}',
  '{"b":{"c":[1,"two",null]}}',
  '{}',
  '{"__proto__":{"polluted":true},"constructor":"x"}',
  '{"caf\u00e9":"\u{1F600}"}',
];
/** Upload's metadata form field: absent, an object, or something that is not an object. */
const uploadMetadata = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<string | undefined>(undefined, ...METADATA_TEXTS) },
  { weight: 1, arbitrary: fc.constantFrom('[1]', 'null', '{bad', '"s"') },
);
/** Metadata update body's `metadata` value (ABSENT: the field is missing). */
const metadataValue = fc.constantFrom<unknown>(
  ...METADATA_TEXTS.map((text) => JSON.parse(text)),
  null,
  ABSENT,
  [1],
  'text',
  7,
);

// ---------------------------------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------------------------------
// When a request breaks several rules at once the spec does not rank them; the model expects the order
// the core applies: the project id and access first (422, 404, 403), then the request's own shape (400,
// 415, 422), then conflicts with stored state (404 for a file, 409), then the content (413, 400), and for
// an upload whose metadata field arrives after the file part, that field last.

function resolveRef(
  model: Model,
  who: Actor,
  ref: ProjectRef,
): { rawId: string; project: ModelProject | undefined } {
  if (ref.kind === 'malformed') return { rawId: 'not-a-uuid', project: undefined };
  if (ref.kind === 'unknown') return { rawId: UNKNOWN_ID, project: undefined };
  const pool = ref.kind === 'own' ? model.projects.filter((p) => p.owner === who) : model.projects;
  const project = pool[ref.index % pool.length]!;
  return { rawId: ref.kind === 'known' && ref.upper ? project.id.toUpperCase() : project.id, project };
}

function resolveFile(model: Model, who: Actor, ref: ProjectRef, file: FileRef): string {
  if (file.kind === 'named') return file.name;
  const names = [...(resolveRef(model, who, ref).project?.files.keys() ?? [])];
  return names.length === 0 ? 'a.md' : names[file.index % names.length]!;
}

/** The access rule: malformed id 422; missing or inactive 404 whoever asks; another account's 403. */
function expectAccess(model: Model, who: Actor, ref: ProjectRef): Expected<ModelProject> {
  if (ref.kind === 'malformed') return { code: 'INVALID_INPUT' };
  const { project } = resolveRef(model, who, ref);
  if (!project?.active) return { code: 'PROJECT_NOT_FOUND' };
  if (project.owner !== who) return { code: 'FORBIDDEN' };
  return { code: 'OK', value: project };
}

const nameTaken = (model: Model, who: Actor, name: string, except?: ModelProject) =>
  model.projects.some((p) => p.owner === who && p.active && p.name === name && p !== except);

const isDescription = (value: unknown) => value === ABSENT || value === null || typeof value === 'string';

function buildBody(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ABSENT));
}

const later = (model: Model, ...previous: number[]) => Math.max(model.now, ...previous);

// ---------------------------------------------------------------------------------------------------
// The full-state check after each step
// ---------------------------------------------------------------------------------------------------

function expectedProjectView(project: ModelProject): Omit<ProjectView, 'bucketName' | 'etag'> {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    isDefault: project.isDefault,
    isActive: project.active,
    fileCount: project.active ? project.files.size : 0,
    totalSizeBytes: project.active
      ? [...project.files.values()].reduce((sum, f) => sum + f.bytes.length, 0)
      : 0,
    historySizeBytes: project.active
      ? [...project.files.values()].reduce((sum, f) => sum + historyOf(f), 0)
      : 0,
    trashSizeBytes: 0,
    attachmentCount: 0,
    attachmentBytes: 0,
    settings: {
      requireIfMatch: false,
      keepRevisions: KEEP_REVISIONS,
      trashRetentionDays: 0,
      keepRevisionsDays: 0,
    },
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}

const withoutBucket = ({ bucketName: _bucket, etag: _etag, ...rest }: ProjectView) => rest;

function describeFile(view: FileView) {
  return {
    filename: view.filename,
    sizeBytes: view.sizeBytes,
    metadata: view.metadata === null ? null : JSON.stringify(view.metadata),
    revision: view.revision,
    sha256: view.sha256,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

function expectedFile(file: ModelFile) {
  return {
    filename: file.filename,
    sizeBytes: file.bytes.length,
    metadata: file.metadata,
    revision: file.revision,
    sha256: sha256(file.bytes),
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
  };
}

async function assertMatchesModel(model: Model, real: Real): Promise<void> {
  for (const who of [0, 1] as const) {
    const principal = real.principals[who];
    const other = real.principals[who === 0 ? 1 : 0];
    const listed = await real.store.projects.list({ principal });
    const expected = model.projects.filter((p) => p.owner === who).sort(byCreationThenId);
    expect(listed.map(withoutBucket)).toEqual(expected.map(expectedProjectView));

    const activeNames = listed.filter((p) => p.isActive).map((p) => p.name);
    expect(new Set(activeNames).size, 'names unique among active projects').toBe(activeNames.length);
    expect(listed.filter((p) => p.isDefault && p.isActive)).toHaveLength(1);

    for (const view of listed) {
      const previous = real.lastSeen.get(view.id);
      if (previous !== undefined) expect(view.updatedAt).toBeGreaterThanOrEqual(previous);
      real.lastSeen.set(view.id, view.updatedAt);
      // The project ETag changes whenever a field changes, and only then.
      const fields = JSON.stringify(withoutBucket(view));
      const tag = real.etags.get(fields);
      if (tag === undefined) {
        expect([...real.etags.values()], 'a new state gets a new ETag').not.toContain(view.etag);
        real.etags.set(fields, view.etag);
      } else expect(view.etag).toBe(tag);
      expect(view.bucketName).toBe(`mdstore-${view.id}`);
      await assertProject(model, real, view, principal, other);
    }
  }
  expect(await real.records.listBlobIntents({ limit: 10 }), 'no write left half-done').toEqual([]);
}

async function assertProject(
  model: Model,
  real: Real,
  view: ProjectView,
  owner: Principal,
  other: Principal,
) {
  const projectId = view.id;
  if (!view.isActive) {
    expect(view.fileCount + view.totalSizeBytes).toBe(0);
    expect((await attempt(() => real.store.projects.get({ principal: owner, projectId }))).code).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect((await attempt(() => real.store.files.list({ principal: other, projectId }))).code).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(await real.blobs.bucketExists({ bucket: view.bucketName })).toBe(false);
    return;
  }
  expect(await real.store.projects.get({ principal: owner, projectId })).toEqual(view);
  expect((await attempt(() => real.store.projects.get({ principal: other, projectId }))).code).toBe(
    'FORBIDDEN',
  );

  const list = await real.store.files.list({ principal: owner, projectId });
  expect(list.totalCount).toBe(view.fileCount);
  expect(list.totalSizeBytes).toBe(view.totalSizeBytes);
  expect(list.files.reduce((sum, file) => sum + file.sizeBytes, 0)).toBe(view.totalSizeBytes);
  const project = model.projects.find((p) => p.id === projectId)!;
  const files = [...project.files.values()].sort((a, b) => byCodePoint(a.filename, b.filename));
  expect(list.files.map(describeFile)).toEqual(files.map(expectedFile));

  for (const file of files) {
    const download = await real.store.files.download({
      principal: owner,
      projectId,
      filename: file.filename,
    });
    const bytes = await readAll(download.content);
    expect(bytes, `content of ${file.filename}`).toEqual(file.bytes);
    expect(download.file.sha256).toBe(sha256(file.bytes));
    expect(download.file.storagePath).toBe(`${real.blobs.scheme}://${view.bucketName}/${file.filename}`);
  }
  // One blob per kept content version above the inline threshold, none orphaned.
  const stored: number[] = [];
  for await (const entry of real.blobs.list!({ bucket: view.bucketName })) stored.push(entry.sizeBytes);
  const versions = new Map<number, number>();
  for (const file of files) for (const { version, size } of file.kept) versions.set(version, size);
  const inBlobs = [...versions.values()].filter((size) => size > model.inlineMaxBytes);
  expect(stored.sort(), 'one blob per kept version above the threshold, no orphans').toEqual(inBlobs.sort());
}

// ---------------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------------

let commandsRun = 0;

abstract class Step implements fc.AsyncCommand<Model, Real> {
  check(): boolean {
    return true;
  }

  async run(model: Model, real: Real): Promise<void> {
    commandsRun++;
    currentCommand = this.constructor.name;
    await this.apply(model, real);
    currentCommand = '';
    await assertMatchesModel(model, real);
  }

  protected abstract apply(model: Model, real: Real): Promise<void>;
  abstract toString(): string;
}

const show = (value: unknown) =>
  value === ABSENT ? '<absent>' : typeof value === 'symbol' ? String(value) : JSON.stringify(value);

class Tick extends Step {
  constructor(readonly deltaMs: number) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    model.now += this.deltaMs;
    real.clock.value = model.now;
  }
  toString() {
    return `Tick(${this.deltaMs})`;
  }
}

class CreateProject extends Step {
  constructor(
    readonly who: Actor,
    readonly name: unknown,
    readonly description: unknown,
  ) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const body = buildBody({ name: this.name, description: this.description });
    const expected: ErrorCode | 'OK' =
      this.name === ABSENT
        ? 'MALFORMED_INPUT'
        : !isValidProjectName(this.name) || !isDescription(this.description)
          ? 'INVALID_INPUT'
          : nameTaken(model, this.who, this.name as string)
            ? 'PROJECT_NAME_TAKEN'
            : 'OK';
    const outcome = await attempt(() =>
      real.store.projects.create({ principal: real.principals[this.who], body: wireBody(body) }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK') return;
    const view = outcome.value;
    const project: ModelProject = {
      id: view.id,
      owner: this.who,
      name: this.name as string,
      description: this.description === ABSENT ? null : (this.description as string | null),
      isDefault: false,
      active: true,
      createdAt: model.now,
      updatedAt: model.now,
      files: new Map(),
    };
    expect(withoutBucket(view)).toEqual(expectedProjectView(project));
    model.projects.push(project);
  }
  toString() {
    return `CreateProject(${this.who}, ${show(this.name)}, ${show(this.description)})`;
  }
}

class ListProjects extends Step {
  constructor(readonly who: Actor) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const listed = await real.store.projects.list({ principal: real.principals[this.who] });
    const own = model.projects.filter((p) => p.owner === this.who).sort(byCreationThenId);
    expect(listed.map((p) => p.id)).toEqual(own.map((p) => p.id));
  }
  toString() {
    return `ListProjects(${this.who})`;
  }
}

class GetProject extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
  ) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const expected = expectAccess(model, this.who, this.ref);
    const { rawId } = resolveRef(model, this.who, this.ref);
    const outcome = await attempt(() =>
      real.store.projects.get({ principal: real.principals[this.who], projectId: rawId }),
    );
    expect(outcome.code).toBe(expected.code);
    if (outcome.code === 'OK' && expected.code === 'OK') {
      expect(withoutBucket(outcome.value)).toEqual(expectedProjectView(expected.value));
    }
  }
  toString() {
    return `GetProject(${this.who}, ${show(this.ref)})`;
  }
}

class UpdateProject extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
    readonly name: unknown,
    readonly description: unknown,
  ) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const access = expectAccess(model, this.who, this.ref);
    const body = buildBody({ name: this.name, description: this.description });
    let expected: ErrorCode | 'OK' = access.code;
    if (access.code === 'OK') {
      if (this.name === ABSENT && this.description === ABSENT) expected = 'MALFORMED_INPUT';
      else if ((this.name !== ABSENT && !isValidProjectName(this.name)) || !isDescription(this.description))
        expected = 'INVALID_INPUT';
      else if (this.name !== ABSENT && nameTaken(model, this.who, this.name as string, access.value))
        expected = 'PROJECT_NAME_TAKEN';
    }
    const { rawId } = resolveRef(model, this.who, this.ref);
    const outcome = await attempt(() =>
      real.store.projects.update({ principal: real.principals[this.who], projectId: rawId, body }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || access.code !== 'OK') return;
    const project = access.value;
    if (this.name !== ABSENT) project.name = this.name as string;
    if (this.description !== ABSENT) project.description = this.description as string | null;
    project.updatedAt = Math.max(model.now, project.updatedAt + 1); // an update always moves it
    expect(withoutBucket(outcome.value)).toEqual(expectedProjectView(project));
  }
  toString() {
    return `UpdateProject(${this.who}, ${show(this.ref)}, ${show(this.name)}, ${show(this.description)})`;
  }
}

class DeleteProject extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
  ) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const access = expectAccess(model, this.who, this.ref);
    const expected: ErrorCode | 'OK' =
      access.code === 'OK' && access.value.isDefault ? 'DEFAULT_PROJECT_PROTECTED' : access.code;
    const { rawId } = resolveRef(model, this.who, this.ref);
    const outcome = await attempt(() =>
      real.store.projects.delete({ principal: real.principals[this.who], projectId: rawId }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || access.code !== 'OK') return;
    const project = access.value;
    expect(outcome.value).toEqual({ projectId: project.id });
    project.active = false;
    project.files.clear();
    project.updatedAt = later(model, project.updatedAt);
  }
  toString() {
    return `DeleteProject(${this.who}, ${show(this.ref)})`;
  }
}

class UploadFile extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
    readonly file: FileRef,
    readonly content: Content,
    readonly metadata: string | undefined,
    /** The metadata form field arrives after the file part (given as a promise). */
    readonly metadataLate: boolean,
  ) {
    super();
  }
  private metadataOutcome(): { code: 'OK'; value: string | null } | { code: ErrorCode } {
    if (this.metadata === undefined) return { code: 'OK', value: null };
    try {
      const value: unknown = JSON.parse(this.metadata);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { code: 'MALFORMED_INPUT' };
      return { code: 'OK', value: JSON.stringify(value) };
    } catch {
      return { code: 'MALFORMED_INPUT' };
    }
  }
  private expected(
    model: Model,
    filename: string,
  ): { code: ErrorCode | 'OK'; project?: ModelProject; metadata?: string | null } {
    const access = expectAccess(model, this.who, this.ref);
    if (access.code !== 'OK') return access;
    const name = filenameOutcome(filename);
    if (name !== 'OK') return { code: name };
    const metadata = this.metadataOutcome();
    if (!this.metadataLate && metadata.code !== 'OK') return metadata;
    if (access.value.files.has(filename)) return { code: 'FILENAME_TAKEN' };
    const body = contentOutcome(this.content.bytes);
    if (body !== 'OK') return { code: body };
    if (metadata.code !== 'OK') return metadata;
    return { code: 'OK', project: access.value, metadata: metadata.value };
  }
  protected async apply(model: Model, real: Real) {
    const filename = resolveFile(model, this.who, this.ref, this.file);
    const expected = this.expected(model, filename);
    const { rawId } = resolveRef(model, this.who, this.ref);
    const outcome = await attempt(() =>
      real.store.files.upload({
        principal: real.principals[this.who],
        projectId: rawId,
        filename,
        content: stream(this.content),
        metadata: this.metadataLate ? Promise.resolve(this.metadata) : this.metadata,
      }),
    );
    expect(outcome.code).toBe(expected.code);
    if (outcome.code !== 'OK' || !expected.project) return;
    const project = expected.project;
    const at = later(model, project.updatedAt);
    const metadata = expected.metadata ?? null;
    const bytes = this.content.bytes;
    const version = ++model.versions;
    const file: ModelFile = {
      filename,
      bytes,
      revision: 1,
      kept: [{ revision: 1, version, size: bytes.length, bytes, metadata }],
      metadata,
      createdAt: at,
      updatedAt: at,
    };
    project.files.set(filename, file);
    project.updatedAt = at;
    expect(describeFile(outcome.value)).toEqual(expectedFile(file));
  }
  toString() {
    const bytes = `[${[...this.content.bytes].join(',')}]/${show(this.content.cuts)}`;
    return `UploadFile(${this.who}, ${show(this.ref)}, ${show(this.file)}, ${bytes}, ${show(this.metadata)}, late=${this.metadataLate})`;
  }
}

/** Commands on one existing file: access, then the file must exist. */
abstract class FileStep extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
    readonly file: FileRef,
  ) {
    super();
  }
  protected target(model: Model): Expected<{ project: ModelProject; file: ModelFile }> {
    const access = expectAccess(model, this.who, this.ref);
    if (access.code !== 'OK') return access;
    const file = access.value.files.get(resolveFile(model, this.who, this.ref, this.file));
    if (!file) return { code: 'FILE_NOT_FOUND' };
    return { code: 'OK', value: { project: access.value, file } };
  }
  protected input(model: Model, real: Real) {
    return {
      principal: real.principals[this.who],
      projectId: resolveRef(model, this.who, this.ref).rawId,
      filename: resolveFile(model, this.who, this.ref, this.file),
    };
  }
  protected label(name: string, ...extra: unknown[]) {
    return `${name}(${[this.who, this.ref, this.file, ...extra].map(show).join(', ')})`;
  }
}

class ListFiles extends Step {
  constructor(
    readonly who: Actor,
    readonly ref: ProjectRef,
  ) {
    super();
  }
  protected async apply(model: Model, real: Real) {
    const access = expectAccess(model, this.who, this.ref);
    const { rawId } = resolveRef(model, this.who, this.ref);
    const outcome = await attempt(() =>
      real.store.files.list({ principal: real.principals[this.who], projectId: rawId }),
    );
    expect(outcome.code).toBe(access.code);
    if (outcome.code === 'OK' && access.code === 'OK') {
      const files = [...access.value.files.values()].sort((a, b) => byCodePoint(a.filename, b.filename));
      expect(outcome.value.files.map(describeFile)).toEqual(files.map(expectedFile));
    }
  }
  toString() {
    return `ListFiles(${this.who}, ${show(this.ref)})`;
  }
}

class DownloadFile extends FileStep {
  protected async apply(model: Model, real: Real) {
    const expected = this.target(model);
    const outcome = await attempt(async () => {
      const download = await real.store.files.download(this.input(model, real));
      return { file: download.file, bytes: await readAll(download.content) };
    });
    expect(outcome.code).toBe(expected.code);
    if (outcome.code === 'OK' && expected.code === 'OK') {
      expect(outcome.value.bytes).toEqual(expected.value.file.bytes);
      expect(describeFile(outcome.value.file)).toEqual(expectedFile(expected.value.file));
    }
  }
  toString() {
    return this.label('DownloadFile');
  }
}

class UpdateMetadata extends FileStep {
  constructor(
    who: Actor,
    ref: ProjectRef,
    file: FileRef,
    readonly metadata: unknown,
  ) {
    super(who, ref, file);
  }
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const valid =
      this.metadata === null ||
      (typeof this.metadata === 'object' && this.metadata !== null && !Array.isArray(this.metadata));
    const expected = target.code === 'OK' && !valid ? 'INVALID_INPUT' : target.code;
    const body = buildBody({ metadata: this.metadata });
    const outcome = await attempt(() =>
      real.store.files.updateMetadata({ ...this.input(model, real), body: wireBody(body) }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || target.code !== 'OK') return;
    const { file } = target.value;
    file.metadata = this.metadata === null ? null : JSON.stringify(this.metadata);
    file.updatedAt = later(model, file.updatedAt);
    addRevision(model, file, 'same');
    expect(describeFile(outcome.value)).toEqual(expectedFile(file));
  }
  toString() {
    return this.label('UpdateMetadata', this.metadata);
  }
}

class UpdateContent extends FileStep {
  constructor(
    who: Actor,
    ref: ProjectRef,
    file: FileRef,
    readonly content: Content,
  ) {
    super(who, ref, file);
  }
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const body = contentOutcome(this.content.bytes);
    const expected = target.code === 'OK' ? body : target.code;
    const outcome = await attempt(() =>
      real.store.files.updateContent({ ...this.input(model, real), content: stream(this.content) }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || target.code !== 'OK') return;
    const { project, file } = target.value;
    const at = later(model, file.updatedAt, project.updatedAt);
    file.bytes = this.content.bytes;
    addRevision(model, file, 'new');
    file.updatedAt = at;
    project.updatedAt = at;
    expect(describeFile(outcome.value)).toEqual(expectedFile(file));
  }
  toString() {
    return this.label('UpdateContent', [...this.content.bytes], this.content.cuts);
  }
}

class DeleteFile extends FileStep {
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const outcome = await attempt(() => real.store.files.delete(this.input(model, real)));
    expect(outcome.code).toBe(target.code);
    if (outcome.code !== 'OK' || target.code !== 'OK') return;
    const { project } = target.value;
    project.files.delete(target.value.file.filename);
    project.updatedAt = later(model, project.updatedAt);
  }
  toString() {
    return this.label('DeleteFile');
  }
}

// Extensions §5: restore, move and copy.

class RestoreRevision extends FileStep {
  constructor(
    who: Actor,
    ref: ProjectRef,
    file: FileRef,
    /** How many revisions back from the current one (a pruned or unknown one is a 404). */
    readonly back: number,
  ) {
    super(who, ref, file);
  }
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const number = target.code === 'OK' ? target.value.file.revision - this.back : 1;
    const kept = target.code === 'OK' ? target.value.file.kept.find((k) => k.revision === number) : undefined;
    const expected =
      target.code !== 'OK' ? target.code : number < 1 ? 'INVALID_INPUT' : kept ? 'OK' : 'REVISION_NOT_FOUND';
    const outcome = await attempt(() =>
      real.store.files.restore({ ...this.input(model, real), body: { revision: number } }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || target.code !== 'OK' || !kept) return;
    const { project, file } = target.value;
    const at = later(model, file.updatedAt, project.updatedAt);
    file.bytes = kept.bytes;
    file.metadata = kept.metadata;
    addRevision(model, file, kept.version);
    file.updatedAt = at;
    project.updatedAt = at;
    expect(describeFile(outcome.value)).toEqual(expectedFile(file));
  }
  toString() {
    return this.label('RestoreRevision', this.back);
  }
}

class MoveFile extends FileStep {
  constructor(
    who: Actor,
    ref: ProjectRef,
    file: FileRef,
    readonly to: string,
  ) {
    super(who, ref, file);
  }
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const name = filenameOutcome(this.to);
    const expected =
      target.code !== 'OK'
        ? target.code
        : name !== 'OK'
          ? name
          : target.value.project.files.has(this.to)
            ? 'FILENAME_TAKEN'
            : 'OK';
    const outcome = await attempt(() =>
      real.store.files.move({ ...this.input(model, real), body: { to: this.to } }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || target.code !== 'OK') return;
    const { project, file } = target.value;
    const at = later(model, file.updatedAt, project.updatedAt);
    project.files.delete(file.filename);
    const moved: ModelFile = { ...file, filename: this.to, updatedAt: at };
    addRevision(model, moved, 'same');
    project.files.set(this.to, moved);
    project.updatedAt = at;
    expect(describeFile(outcome.value)).toEqual(expectedFile(moved));
  }
  toString() {
    return this.label('MoveFile', this.to);
  }
}

class CopyFile extends FileStep {
  constructor(
    who: Actor,
    ref: ProjectRef,
    file: FileRef,
    readonly to: string,
    /** The project copied into (this one when it resolves to the same). */
    readonly into: ProjectRef,
  ) {
    super(who, ref, file);
  }
  protected async apply(model: Model, real: Real) {
    const target = this.target(model);
    const destination = expectAccess(model, this.who, this.into);
    const { rawId } = resolveRef(model, this.who, this.into);
    const name = filenameOutcome(this.to);
    const expected =
      target.code !== 'OK'
        ? target.code
        : name !== 'OK'
          ? name
          : destination.code !== 'OK'
            ? destination.code
            : destination.value.files.has(this.to)
              ? 'FILENAME_TAKEN'
              : 'OK';
    const outcome = await attempt(() =>
      real.store.files.copy({ ...this.input(model, real), body: { to: this.to, project_id: rawId } }),
    );
    expect(outcome.code).toBe(expected);
    if (outcome.code !== 'OK' || target.code !== 'OK' || destination.code !== 'OK') return;
    const source = target.value.file;
    const project = destination.value;
    const at = later(model, project.updatedAt);
    const version = ++model.versions;
    const copy: ModelFile = {
      filename: this.to,
      bytes: source.bytes,
      revision: 1,
      kept: [
        { revision: 1, version, size: source.bytes.length, bytes: source.bytes, metadata: source.metadata },
      ],
      metadata: source.metadata,
      createdAt: at,
      updatedAt: at,
    };
    project.files.set(this.to, copy);
    project.updatedAt = at;
    expect(describeFile(outcome.value)).toEqual(expectedFile(copy));
  }
  toString() {
    return this.label('CopyFile', this.to, this.into);
  }
}

const optional = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 1, arbitrary: fc.constant<typeof ABSENT>(ABSENT) }, { weight: 4, arbitrary });

/** Uploads mostly use fresh names from the pools, sometimes the name of a file already there. */
const uploadName: fc.Arbitrary<FileRef> = fc.oneof(
  { weight: 5, arbitrary: filename.map((name) => ({ kind: 'named' as const, name })) },
  { weight: 1, arbitrary: fc.nat().map((index) => ({ kind: 'existing' as const, index })) },
);
const upload = fc
  .tuple(actor, projectRef, uploadName, content, uploadMetadata, fc.boolean())
  .map(([who, ref, name, body, metadata, late]) => new UploadFile(who, ref, name, body, metadata, late));

/** Mostly a revision or two back (kept), sometimes beyond what is kept, or not a revision at all. */
const back = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 2 }) },
  { weight: 1, arbitrary: fc.integer({ min: -1, max: KEEP_REVISIONS + 1 }) },
);
const restore = fc
  .tuple(actor, projectRef, fileRef, back)
  .map(([who, ref, file, n]) => new RestoreRevision(who, ref, file, n));
const move = fc
  .tuple(actor, projectRef, fileRef, filename)
  .map(([who, ref, file, to]) => new MoveFile(who, ref, file, to));
const copy = fc
  .tuple(actor, projectRef, fileRef, filename, projectRef)
  .map(([who, ref, file, to, into]) => new CopyFile(who, ref, file, to, into));

const COMMANDS: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
  fc.integer({ min: -3000, max: 5000 }).map((delta) => new Tick(delta)),
  fc
    .tuple(actor, optional(projectName), description)
    .map(([who, name, desc]) => new CreateProject(who, name, desc)),
  actor.map((who) => new ListProjects(who)),
  fc.tuple(actor, projectRef).map(([who, ref]) => new GetProject(who, ref)),
  fc
    .tuple(actor, projectRef, optional(fc.oneof(projectName, fc.constant(null))), description)
    .map(([who, ref, name, desc]) => new UpdateProject(who, ref, name, desc)),
  fc.tuple(actor, projectRef).map(([who, ref]) => new DeleteProject(who, ref)),
  upload,
  upload,
  upload,
  fc.tuple(actor, projectRef).map(([who, ref]) => new ListFiles(who, ref)),
  fc.tuple(actor, projectRef, fileRef).map(([who, ref, file]) => new DownloadFile(who, ref, file)),
  fc
    .tuple(actor, projectRef, fileRef, metadataValue)
    .map(([who, ref, file, metadata]) => new UpdateMetadata(who, ref, file, metadata)),
  fc
    .tuple(actor, projectRef, fileRef, content)
    .map(([who, ref, file, body]) => new UpdateContent(who, ref, file, body)),
  fc.tuple(actor, projectRef, fileRef).map(([who, ref, file]) => new DeleteFile(who, ref, file)),
  restore,
  restore,
  move,
  copy,
];

async function setUp(inlineMaxBytes: number): Promise<{ model: Model; real: Real }> {
  const clock = { value: START };
  const records = createMemoryRecords();
  const blobs = createMemoryBlobStore();
  const store = createMdStore({
    records,
    blobs,
    rateLimiter: createMemoryRateLimiter(),
    clock: { now: () => clock.value },
    settings: { maxFileBytes: MAX_FILE_BYTES, inlineMaxBytes },
  });
  const model: Model = { projects: [], now: START, versions: 0, inlineMaxBytes };
  const principals: Principal[] = [];
  for (const who of [0, 1] as const) {
    const created = await store.accounts.create({ name: `account-${who}` });
    principals.push(await store.authenticate({ apiKey: created.apiKey.apiKey }));
    model.projects.push({
      id: created.defaultProject.id,
      owner: who,
      name: 'Default',
      description: null,
      isDefault: true,
      active: true,
      createdAt: START,
      updatedAt: START,
      files: new Map(),
    });
  }
  const real: Real = {
    store,
    records,
    blobs,
    principals: [principals[0]!, principals[1]!],
    clock,
    lastSeen: new Map(),
    etags: new Map(),
  };
  return { model, real };
}

describe('the core against a model of the spec', () => {
  let sequences = 0;
  afterAll(() => {
    console.log(`model-based test: ${sequences} command sequences, ${commandsRun} commands run`);
    if (process.env.MDSTORE_PBT_STATS)
      console.log(
        [...tally]
          .sort()
          .map(([key, n]) => `${key}: ${n}`)
          .join('\n'),
      );
  });

  it('keeps every invariant over random sequences of operations by two accounts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(COMMANDS, { maxCommands: MAX_COMMANDS, size: 'max' }),
        // Everything in blobs, a threshold inside the contents' sizes (files move between the forms), all inline.
        fc.constantFrom(0, 3, 64 * 1024),
        async (commands, inlineMaxBytes) => {
          sequences++;
          const { model, real } = await setUp(inlineMaxBytes);
          await assertMatchesModel(model, real);
          await fc.asyncModelRun(() => ({ model, real }), commands);
        },
      ),
      { numRuns: RUNS },
    );
    expect(sequences).toBeGreaterThanOrEqual(RUNS);
  }, 300_000);
});
