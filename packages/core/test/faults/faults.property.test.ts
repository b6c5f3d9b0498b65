import {
  applyEdits,
  type BlobStore,
  createMdStore,
  type ImportArchive,
  isMdStoreError,
  type MarkdownEdit,
  type MdStore,
  type Principal,
  type RecordsRepository,
  type RestoreResult,
  wireBody,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  breakingStream,
  type FaultAction,
  type FaultCall,
  type FaultPlan,
  hanging,
  type InjectedFault,
  randomFaults,
  systemError,
  throwing,
  unavailableError,
  withBlobFaults,
  withRecordsFaults,
} from '../../src/testing/faults/index.js';
import { readStoredContent } from '../../src/testing/inspect.js';
import { isAttachmentItem } from '../../src/use-cases/trash/attachments.js';
import { bucketRecorder, readAll, sha256Hex, storeProblems } from './support.js';

/**
 * Random sequences of writes from two accounts with random faults injected into the records and blob
 * stores. After every step, read through the unfaulted adapters: an operation that resolved really
 * happened (records and bytes); one that rejected left the previous state whole (a project deletion may
 * instead be left `deleting`, which hides it and is finished later); the stores agree, and any blob
 * without a record is noted for reconciliation. At the end, with faults off, `reconcile()` leaves no
 * leftover at all, and the store still serves.
 *
 * Contents above 16 bytes go to the blob store (`inlineMaxBytes: 16`), so both storage forms meet the
 * faults, copies (which copy the bytes through the staged path) included.
 *
 * Restores of a project as it was (extensions §16) are one more write: the model after one is what the
 * same restore, asked as a dry run of the stores without faults, says it does; with faults it happens
 * whole or not at all, like any changeset.
 *
 * Faults at `afterCommit` (the transaction committed but the caller hears a failure) are left out here:
 * see known-bugs.test.ts.
 */

const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 200;
/**
 * MDSTORE_FAULTS_AFTER_COMMIT=1 adds lost commit acknowledgements; a rejected write may then have
 * happened whole (never partly). Opt-in: the model cannot predict the id of a project whose creation
 * was rejected yet committed, so such steps fail the comparison; lost-commit-ack.test.ts covers the
 * promise itself (nothing committed is ever removed) for uploads, content updates and project creation.
 */
const AFTER_COMMIT = process.env.MDSTORE_FAULTS_AFTER_COMMIT === '1';
const WRITE_DEADLINE_MS = 60_000;
const START = Date.UTC(2024, 0, 15, 9, 30, 0, 123);
const FILENAMES = ['a.md', 'b.md', 'c.mdx'] as const;
const PROJECT_NAMES = ['p1', 'p2'] as const;
const encoder = new TextEncoder();

// ---- the model -------------------------------------------------------------------------------------

interface ModelFile {
  readonly content: string;
  /** JSON text or null. */
  readonly metadata: string | null;
}
/** A file in a project's trash (extensions §5), as deleted. */
interface ModelTrashed extends ModelFile {
  readonly filename: string;
}
interface ModelProject {
  readonly name: string;
  readonly isDefault: boolean;
  readonly files: ReadonlyMap<string, ModelFile>;
  /** Projects with `trash_retention_days` > 0: the files deleted into the trash and not yet purged. */
  readonly trash?: readonly ModelTrashed[];
}
/** Active projects by id, per account. */
type Model = readonly [ReadonlyMap<string, ModelProject>, ReadonlyMap<string, ModelProject>];

const withProject = (model: Model, actor: number, id: string, project: ModelProject | undefined): Model => {
  const next = model.map((projects) => new Map(projects)) as [
    Map<string, ModelProject>,
    Map<string, ModelProject>,
  ];
  if (project) next[actor]!.set(id, project);
  else next[actor]!.delete(id);
  return next;
};

const withFile = (model: Model, actor: number, id: string, filename: string, file: ModelFile | undefined) => {
  const project = model[actor]!.get(id)!;
  const files = new Map(project.files);
  if (file) files.set(filename, file);
  else files.delete(filename);
  return withProject(model, actor, id, { ...project, files });
};

/** A delete: the file leaves the project, into its trash when it has one. */
const withDeleted = (model: Model, actor: number, id: string, filename: string) => {
  const project = model[actor]!.get(id)!;
  const file = project.files.get(filename);
  const next = withFile(model, actor, id, filename, undefined);
  if (!project.trash || !file) return next;
  const trash = [...project.trash, { ...file, filename }];
  return withProject(next, actor, id, { ...next[actor]!.get(id)!, trash });
};

/** The trash item `item` leaves the trash; restored under `to` when given. */
const withoutTrashed = (model: Model, actor: number, id: string, item: ModelTrashed, to?: string) => {
  const project = model[actor]!.get(id)!;
  const index = project.trash!.indexOf(item);
  const trash = project.trash!.filter((_, i) => i !== index);
  const files = new Map(project.files);
  if (to !== undefined) files.set(to, { content: item.content, metadata: item.metadata });
  return withProject(model, actor, id, { ...project, files, trash });
};

// ---- commands --------------------------------------------------------------------------------------

type Command =
  | { op: 'upload'; actor: 0 | 1; pick: number; filename: string; content: string; metadata?: object }
  | { op: 'updateContent'; actor: 0 | 1; pick: number; filename: string; content: string }
  | { op: 'updateMetadata'; actor: 0 | 1; pick: number; filename: string; metadata: object | null }
  | { op: 'edit'; actor: 0 | 1; pick: number; filename: string; edits: MarkdownEdit[] }
  | { op: 'deleteFile'; actor: 0 | 1; pick: number; filename: string }
  | { op: 'download'; actor: 0 | 1; pick: number; filename: string }
  | { op: 'restore'; actor: 0 | 1; pick: number; filename: string; back: number }
  | { op: 'move'; actor: 0 | 1; pick: number; filename: string; to: string }
  | { op: 'copy'; actor: 0 | 1; pick: number; filename: string; to: string; into: number }
  | { op: 'changeset'; actor: 0 | 1; pick: number; ops: ChangesetStep[] }
  | { op: 'publishDraft'; actor: 0 | 1; pick: number; puts: { filename: string; content: string }[] }
  | {
      op: 'import';
      actor: 0 | 1;
      pick: number;
      mode: 'merge' | 'replace';
      dryRun: boolean;
      entries: ImportEntry[];
    }
  | { op: 'createProject'; actor: 0 | 1; name: string }
  | { op: 'deleteProject'; actor: 0 | 1; pick: number }
  | { op: 'trashRestore'; actor: 0 | 1; pick: number; rename: boolean }
  | { op: 'trashPurge'; actor: 0 | 1; pick: number }
  | { op: 'expireTrash' }
  | { op: 'reconcile' }
  // Extensions §16: the project as it was at one of the times the sequence went through.
  | { op: 'restoreAsOf'; actor: 0 | 1; pick: number; when: number };

/** One operation of a changeset (extensions §9), over the seed file and the usual names. */
type ChangesetStep =
  | { op: 'put'; filename: string; content: string }
  | { op: 'edit'; filename: string; text: string }
  | { op: 'delete'; filename: string }
  | { op: 'move'; filename: string; to: string }
  // Extensions §12: attachments in the same transaction (their staged blobs removed on a failure;
  // `problems` checks every record's blob, the counters and that no blob is left without a record).
  | { op: 'attach'; path: string; content: string }
  | { op: 'detach'; path: string };

/**
 * One Markdown file of an imported archive (extensions §10); `metadata` given (an object, or null) puts
 * the file in the archive's `mdstore.json`, absent leaves it out (a stored file then keeps its own).
 */
interface ImportEntry {
  readonly filename: string;
  readonly content: string;
  readonly metadata?: object | null;
}

const actor = fc.constantFrom<0 | 1>(0, 1);
const pick = fc.nat({ max: 5 });
const filename = fc.constantFrom(...FILENAMES);
const content = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));
const metadata = fc.dictionary(fc.constantFrom('k', 'title', 'n'), fc.oneof(fc.integer(), fc.string()), {
  maxKeys: 2,
});

/** PATCH edits that mostly apply to the seeds and generated contents, and sometimes fail (409, 400). */
const edit: fc.Arbitrary<MarkdownEdit> = fc.oneof(
  fc.record({ op: fc.constant('append' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({ op: fc.constant('prepend' as const), text: fc.string({ maxLength: 12 }) }),
  fc.record({
    op: fc.constant('replace' as const),
    old: fc.constantFrom('#', 'seed', 'a', ' '),
    new: fc.string({ maxLength: 6 }),
    count: fc.constantFrom(1 as const, 'all' as const),
  }),
  fc.record({
    op: fc.constant('insert' as const),
    line: fc.integer({ min: 1, max: 3 }),
    text: fc.string({ maxLength: 8 }),
  }),
);

const changesetName = fc.oneof(
  { weight: 2, arbitrary: fc.constant('seed.md') },
  { weight: 3, arbitrary: fc.constantFrom(...FILENAMES) },
);
const attachmentPath = fc.constantFrom('a.bin', 'img/b.bin');
const changesetStep: fc.Arbitrary<ChangesetStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      filename: changesetName,
      content: fc.string({ minLength: 1, maxLength: 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('edit' as const),
      filename: changesetName,
      text: fc.string({ maxLength: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), filename: changesetName }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('move' as const), filename: changesetName, to: changesetName }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('attach' as const),
      path: attachmentPath,
      // Few distinct contents: identical bytes (stored once) come up often.
      content: fc.constantFrom('x', 'y', 'zz'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('detach' as const), path: attachmentPath }) },
);

const importEntry: fc.Arbitrary<ImportEntry> = fc.record(
  {
    filename: changesetName,
    content: fc.string({ minLength: 1, maxLength: 40 }),
    metadata: fc.option(metadata, { nil: null }),
  },
  { requiredKeys: ['filename', 'content'] },
);

/** The commands before restore as of (extensions §16): the replayed counterexample below was found with them. */
const baseCommand: fc.Arbitrary<Command> = fc.oneof(
  // Extensions §10: an archive into a project, as one changeset (all or nothing).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('import' as const),
      actor,
      pick,
      mode: fc.constantFrom('merge' as const, 'replace' as const),
      dryRun: fc.constantFrom(false, false, false, true),
      entries: fc.uniqueArray(importEntry, { selector: (entry) => entry.filename, maxLength: 4 }),
    }),
  },
  // Extensions §13: a draft of puts opened, then published as one changeset (all or nothing).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('publishDraft' as const),
      actor,
      pick,
      puts: fc.array(
        fc.record({ filename: changesetName, content: fc.string({ minLength: 1, maxLength: 40 }) }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  // Extensions §9: several files in one change, all or nothing.
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('changeset' as const),
      actor,
      pick,
      // Mostly puts first, so that the later operations find what they act on.
      ops: fc
        .tuple(
          fc.array(
            fc.record({
              op: fc.constant('put' as const),
              filename: changesetName,
              content: fc.string({ minLength: 1, maxLength: 40 }),
            }),
            { maxLength: 2 },
          ),
          fc.array(changesetStep, { minLength: 1, maxLength: 3 }),
        )
        .map(([puts, rest]) => [...puts, ...rest]),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        op: fc.constant('upload' as const),
        actor,
        pick,
        filename,
        content,
        metadata: fc.option(metadata, { nil: undefined }),
      },
      { requiredKeys: ['op', 'actor', 'pick', 'filename', 'content'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('updateContent' as const), actor, pick, filename, content }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('updateMetadata' as const),
      actor,
      pick,
      filename,
      metadata: fc.option(metadata, { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('edit' as const),
      actor,
      pick,
      filename,
      edits: fc.array(edit, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('deleteFile' as const), actor, pick, filename }) },
  // Extensions §5: restore one of the last revisions, move, copy (here or into another project).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('restore' as const),
      actor,
      pick,
      filename,
      back: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('move' as const), actor, pick, filename, to: filename }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('copy' as const),
      actor,
      pick,
      filename,
      to: filename,
      into: pick,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('download' as const), actor, pick, filename }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('createProject' as const),
      actor,
      name: fc.constantFrom(...PROJECT_NAMES),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteProject' as const), actor, pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reconcile' as const) }) },
  // Extensions §5: the trash of the accounts' second projects.
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('trashRestore' as const), actor, pick, rename: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('trashPurge' as const), actor, pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('expireTrash' as const) }) },
);

/** Every command: the base ones, and restores of a project as it was (about one step in ten). */
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 9, arbitrary: baseCommand },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('restoreAsOf' as const), actor, pick, when: fc.nat({ max: 3 }) }),
  },
);

/** Retention of the seeded second projects; `expireTrash` moves the clock past it. */
const TRASH_DAYS = 7;
const DAY_MS = 86_400_000;

// ---- faults ----------------------------------------------------------------------------------------

/** Decision points a scripted fault may target (port.method.point). */
const TARGETS = [
  'blobs.put.call',
  'blobs.get.call',
  'blobs.delete.call',
  'blobs.createBucket.call',
  'blobs.deleteBucket.call',
  'records.withTransaction.beforeWork',
  'records.withTransaction.beforeCommit',
  ...(AFTER_COMMIT ? ['records.withTransaction.afterCommit'] : []),
  'records.tx.insertFile.call',
  'records.tx.updateFile.call',
  'records.tx.deleteFile.call',
  'records.tx.updateProject.call',
  'records.tx.insertProject.call',
  'records.tx.lockProject.call',
  'records.tx.purgeProjectRecords.call',
  'records.tx.insertBlobIntent.call',
  'records.tx.deleteBlobIntent.call',
  'records.tx.isBlobReferenced.call',
  'records.tx.insertRevision.call',
  'records.tx.findRevision.call',
  'records.tx.insertInlineContent.call',
  'records.tx.insertTrashItem.call',
  'records.tx.deleteTrashItem.call',
  'records.tx.deleteRevisions.call',
  'records.findTrashItem.call',
  'records.listExpiredTrash.call',
  'records.findFile.call',
  'records.findProjectById.call',
  'records.listFilePage.call',
  'records.isBlobReferenced.call',
  'blobs.list.call',
];
/** The reads of a restore as of (extensions §16), beside the changeset's own write path above. */
const RESTORE_TARGETS = [
  'records.listFiles.call',
  'records.listRevisions.call',
  'records.countTrash.call',
  'records.listTrash.call',
];

const errorOf = fc.constantFrom(
  () => unavailableError(),
  () => systemError('EIO'),
  () => systemError('ENOSPC'),
  () => systemError('ECONNRESET', 'read'),
);
const action: fc.Arbitrary<FaultAction> = fc.oneof(
  errorOf.map((error) => throwing(error)),
  errorOf.map((error) => throwing(error, 'after')),
  fc.integer({ min: 1, max: 3 }).map((ms) => hanging(ms)),
  fc.tuple(fc.nat({ max: 12 }), errorOf).map(([bytes, error]) => breakingStream(bytes, error)),
);
interface ScriptedFault {
  readonly target: string;
  readonly nth: number;
  readonly action: FaultAction;
}
type StepFaults =
  | { kind: 'none' }
  | { kind: 'scripted'; faults: ScriptedFault[] }
  | { kind: 'random'; seed: number };
/** The write path's own steps are hit more often than the reads that precede them. */
const stepFaultsOf = (targets: readonly string[]): fc.Arbitrary<StepFaults> => {
  const target = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...TARGETS.slice(0, 12)) },
    { weight: 1, arbitrary: fc.constantFrom(...targets) },
  );
  const scripted: fc.Arbitrary<ScriptedFault> = fc.record({
    target,
    nth: fc.integer({ min: 1, max: 3 }),
    action,
  });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 3,
      arbitrary: fc
        .array(scripted, { minLength: 1, maxLength: 2 })
        .map((faults) => ({ kind: 'scripted' as const, faults })),
    },
    { weight: 2, arbitrary: fc.integer().map((seed) => ({ kind: 'random' as const, seed })) },
  );
};
/** As before restore as of (the replayed counterexample's), and with its reads among the targets. */
const baseStepFaults = stepFaultsOf(TARGETS);
const stepFaults = stepFaultsOf([...TARGETS, ...RESTORE_TARGETS]);

const RANDOM_ACTIONS = [
  throwing(() => unavailableError()),
  throwing(() => systemError('EIO'), 'after'),
  hanging(2),
  breakingStream(3, () => systemError('ENOSPC')),
];

/** A plan the test re-arms at every step; call numbers count from the start of the step. */
function steppedPlan() {
  let current: FaultPlan | undefined;
  let counts = new Map<string, number>();
  const injected: InjectedFault[] = [];
  const plan: FaultPlan = {
    decide(call: FaultCall) {
      if (call.point === 'afterCommit' && !AFTER_COMMIT) return undefined;
      return current?.decide(call);
    },
    injected: (fault) => injected.push(fault),
  };
  return {
    plan,
    injected,
    arm(faults: StepFaults) {
      counts = new Map();
      if (faults.kind === 'none') current = undefined;
      else if (faults.kind === 'random')
        current = randomFaults({ seed: faults.seed, rate: 0.08, actions: RANDOM_ACTIONS });
      else {
        current = {
          decide(call) {
            const target = `${call.port}.${call.method}.${call.point}`;
            const nth = (counts.get(target) ?? 0) + 1;
            counts.set(target, nth);
            return faults.faults.find((fault) => fault.target === target && fault.nth === nth)?.action;
          },
        };
      }
    },
    disarm() {
      current = undefined;
    },
  };
}

// ---- running a sequence ----------------------------------------------------------------------------

interface World {
  readonly store: MdStore;
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly buckets: Set<string>;
  readonly principals: readonly [Principal, Principal];
  readonly faults: ReturnType<typeof steppedPlan>;
  readonly clock: { now(): number; advance(ms: number): void };
  /** The same stores without faults: what a restore as of would do, asked before it runs. */
  readonly plain: MdStore;
  /** The seeding's time, then the times the sequence's steps ran at, in order (restores go back to one). */
  readonly times: number[];
  /** The model as it was at each of `times` (after the step that ran then). */
  readonly models: Model[];
}

async function newWorld(): Promise<{ world: World; model: Model }> {
  const records = createMemoryRecords();
  const recorded = bucketRecorder(createMemoryBlobStore());
  const faults = steppedPlan();
  let now = START;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const settings = { writeDeadlineMs: WRITE_DEADLINE_MS, maxFileBytes: 1024, inlineMaxBytes: 16 };
  const store = createMdStore({
    records: withRecordsFaults(records, faults.plan),
    blobs: withBlobFaults(recorded.store, faults.plan),
    rateLimiter: createMemoryRateLimiter(),
    clock,
    settings,
  });
  const plain = createMdStore({
    records,
    blobs: recorded.store,
    rateLimiter: createMemoryRateLimiter(),
    clock,
    settings,
  });
  const created = await Promise.all(['alice', 'bob'].map((name) => store.accounts.create({ name })));
  const principals = (await Promise.all(
    created.map((c) => store.authenticate({ apiKey: c.apiKey.apiKey })),
  )) as unknown as [Principal, Principal];
  // Each account starts with a file in its default project and a second project, so that updates,
  // deletions and project deletions have something to act on from the first step.
  const seed: ModelFile = { content: '# seed', metadata: '{"seed":true}' };
  const model = (await Promise.all(
    created.map(async (c, index) => {
      const principal = principals[index]!;
      const extra = await store.projects.create({
        principal,
        body: { name: 'p0', settings: { trash_retention_days: TRASH_DAYS } },
      });
      for (const projectId of [c.defaultProject.id, extra.id]) {
        await store.files.upload({
          principal,
          projectId,
          filename: 'seed.md',
          content: chunks(seed.content),
          metadata: seed.metadata!,
        });
      }
      const files = new Map([['seed.md', seed]]);
      // The first account's default project keeps a trash too; the second's deletes as the interface says.
      const defaultTrash = index === 0 ? { trash: [] } : {};
      if (index === 0) {
        const settings = { trash_retention_days: TRASH_DAYS };
        await store.projects.update({ principal, projectId: c.defaultProject.id, body: { settings } });
      }
      return new Map([
        [c.defaultProject.id, { name: c.defaultProject.name, isDefault: true, files, ...defaultTrash }],
        [extra.id, { name: 'p0', isDefault: false, files, trash: [] }],
      ]);
    }),
  )) as unknown as Model;
  const world = {
    store,
    records,
    blobs: recorded.store,
    buckets: recorded.buckets,
    principals,
    faults,
    clock,
    plain,
    times: [],
    models: [],
  };
  return { world, model };
}

/** The projects of the account, as the model knows them, in a stable order; `pick` chooses one. */
const pickProject = (model: Model, actorIndex: number, index: number) => {
  const ids = [...model[actorIndex]!.keys()].sort();
  return ids[index % ids.length]!;
};

/**
 * Where a file command acts: mostly on a file that exists (a command on a missing file only tests a 404),
 * and a project deletion mostly on a project that may be deleted.
 */
function resolveTarget(
  model: Model,
  cmd: Exclude<
    Command,
    { op: 'reconcile' | 'createProject' | 'expireTrash' | 'trashRestore' | 'trashPurge' | 'restoreAsOf' }
  >,
) {
  const projects = model[cmd.actor]!;
  if (cmd.op === 'deleteProject') {
    const deletable = [...projects.entries()].filter(([, project]) => !project.isDefault).map(([id]) => id);
    if (deletable.length > 0 && cmd.pick % 4 !== 0)
      return { projectId: deletable.sort()[cmd.pick % deletable.length]! };
    return { projectId: pickProject(model, cmd.actor, cmd.pick) };
  }
  const existing = [...projects.entries()].flatMap(([id, project]) =>
    [...project.files.keys()].map((filename) => ({ projectId: id, filename })),
  );
  if (cmd.op !== 'upload' && existing.length > 0 && cmd.pick % 4 !== 0) {
    existing.sort((a, b) => `${a.projectId}/${a.filename}`.localeCompare(`${b.projectId}/${b.filename}`));
    return existing[cmd.pick % existing.length]!;
  }
  return { projectId: pickProject(model, cmd.actor, cmd.pick), filename: undefined };
}

type Expectation = {
  after: Model /** A rejection may leave `after` instead of the previous state. */;
  afterOnFailure?: boolean;
};

async function run(
  world: World,
  model: Model,
  command: Command,
): Promise<{ outcome: 'ok' | string; expect: Expectation; check?: () => Promise<void> }> {
  const { store } = world;
  let cmd = command;
  const settle = async (work: () => Promise<unknown>) => {
    try {
      await work();
      return 'ok' as const;
    } catch (error) {
      if (isMdStoreError(error)) return error.code;
      if (error instanceof Error && 'code' in error) return `raw ${String(error.code)}`;
      throw error;
    }
  };
  if (cmd.op === 'reconcile') {
    world.clock.advance(WRITE_DEADLINE_MS + 1);
    const outcome = await settle(() => store.maintenance.reconcile());
    // Items left expired by an earlier failed expiry may be purged now.
    return { outcome, expect: { after: await afterExpiry(world, model), afterOnFailure: true } };
  }
  if (cmd.op === 'expireTrash') return expireTrash(world, model, settle);
  if (cmd.op === 'restoreAsOf') return restoreAsOfCommand(world, model, cmd, settle);
  if (cmd.op === 'trashRestore' || cmd.op === 'trashPurge') return trashCommand(world, model, cmd, settle);
  const principal = world.principals[cmd.actor];
  if (cmd.op === 'createProject') {
    const name = cmd.name;
    let createdId = '';
    const outcome = await settle(async () => {
      createdId = (await store.projects.create({ principal, body: { name } })).id;
    });
    const after =
      outcome === 'ok'
        ? withProject(model, cmd.actor, createdId, { name, isDefault: false, files: new Map() })
        : model;
    return { outcome, expect: { after } };
  }
  if (cmd.op === 'changeset') return changesetCommand(world, model, cmd, settle);
  if (cmd.op === 'publishDraft') return publishDraftCommand(world, model, cmd, settle);
  if (cmd.op === 'import') return importCommand(world, model, cmd, settle);
  const target = resolveTarget(model, cmd);
  const projectId = target.projectId;
  const project = model[cmd.actor]!.get(projectId)!;
  if ('filename' in cmd) cmd = { ...cmd, filename: target.filename ?? cmd.filename };
  switch (cmd.op) {
    case 'upload': {
      const metadataText = cmd.metadata === undefined ? undefined : JSON.stringify(cmd.metadata);
      const outcome = await settle(() =>
        store.files.upload({
          principal,
          projectId,
          filename: cmd.filename,
          content: chunks(cmd.content),
          metadata: metadataText,
        }),
      );
      const file = { content: cmd.content, metadata: metadataText ?? null };
      return { outcome, expect: { after: withFile(model, cmd.actor, projectId, cmd.filename, file) } };
    }
    case 'updateContent': {
      const outcome = await settle(() =>
        store.files.updateContent({
          principal,
          projectId,
          filename: cmd.filename,
          content: chunks(cmd.content),
        }),
      );
      const previous = project.files.get(cmd.filename);
      const file = { content: cmd.content, metadata: previous?.metadata ?? null };
      return { outcome, expect: { after: withFile(model, cmd.actor, projectId, cmd.filename, file) } };
    }
    case 'updateMetadata': {
      const outcome = await settle(() =>
        store.files.updateMetadata({
          principal,
          projectId,
          filename: cmd.filename,
          body: wireBody({ metadata: cmd.metadata }),
        }),
      );
      const previous = project.files.get(cmd.filename);
      const metadataText = cmd.metadata === null ? null : JSON.stringify(cmd.metadata);
      const file = previous && { content: previous.content, metadata: metadataText };
      return { outcome, expect: { after: withFile(model, cmd.actor, projectId, cmd.filename, file) } };
    }
    case 'edit': {
      const outcome = await settle(() =>
        store.files.edit({ principal, projectId, filename: cmd.filename, body: { edits: cmd.edits } }),
      );
      const previous = project.files.get(cmd.filename);
      let file: ModelFile | undefined = previous;
      if (previous && outcome === 'ok') {
        file = {
          content: applyEdits(previous.content, cmd.edits, { mdx: cmd.filename.endsWith('.mdx') }),
          metadata: previous.metadata,
        };
      }
      return { outcome, expect: { after: withFile(model, cmd.actor, projectId, cmd.filename, file) } };
    }
    case 'deleteFile': {
      const outcome = await settle(() =>
        store.files.delete({ principal, projectId, filename: cmd.filename }),
      );
      return { outcome, expect: { after: withDeleted(model, cmd.actor, projectId, cmd.filename) } };
    }
    case 'download': {
      let bytes: Uint8Array | undefined;
      const outcome = await settle(async () => {
        const download = await store.files.download({ principal, projectId, filename: cmd.filename });
        bytes = await readAll(download.content);
      });
      const expected = project.files.get(cmd.filename);
      const check = async () => {
        if (outcome === 'ok') expect(new TextDecoder().decode(bytes)).toBe(expected?.content);
      };
      return { outcome, expect: { after: model }, check };
    }
    case 'restore': {
      // What revision `current - back` holds now (read around the faults), or nothing: then a 404.
      const file = await world.records.findFile({ projectId, filename: cmd.filename });
      const number = Math.max(1, (file?.revision ?? 1) - cmd.back);
      const revision = file && (await world.records.findRevision({ fileId: file.id, revision: number }));
      const owner = (await world.records.findProjectById({ projectId }))!;
      const bytes = revision && (await readStoredContent(world, owner, revision));
      const outcome = await settle(() =>
        store.files.restore({ principal, projectId, filename: cmd.filename, body: { revision: number } }),
      );
      const restored =
        revision && bytes
          ? { content: new TextDecoder().decode(bytes), metadata: revision.metadataJson }
          : undefined;
      const after = restored ? withFile(model, cmd.actor, projectId, cmd.filename, restored) : model;
      return { outcome, expect: { after } };
    }
    case 'move': {
      const outcome = await settle(() =>
        store.files.move({ principal, projectId, filename: cmd.filename, body: { to: cmd.to } }),
      );
      const moved = project.files.get(cmd.filename);
      const after = withFile(
        withFile(model, cmd.actor, projectId, cmd.filename, undefined),
        cmd.actor,
        projectId,
        cmd.to,
        moved,
      );
      return { outcome, expect: { after } };
    }
    case 'copy': {
      const into = pickProject(model, cmd.actor, cmd.into);
      const outcome = await settle(() =>
        store.files.copy({
          principal,
          projectId,
          filename: cmd.filename,
          body: { to: cmd.to, project_id: into },
        }),
      );
      const source = project.files.get(cmd.filename);
      return { outcome, expect: { after: withFile(model, cmd.actor, into, cmd.to, source) } };
    }
    case 'deleteProject': {
      const outcome = await settle(() => store.projects.delete({ principal, projectId }));
      return {
        outcome,
        expect: { after: withProject(model, cmd.actor, projectId, undefined), afterOnFailure: true },
      };
    }
  }
}

type Settle = (work: () => Promise<unknown>) => Promise<'ok' | string>;

/**
 * A changeset (extensions §9) on one project of the account: when it resolves, the project is the model
 * after every operation (deleted files into the trash as they were stored, for a project with one);
 * when it is rejected, by its own operations or by a fault, nothing changed at all.
 */
async function changesetCommand(
  world: World,
  model: Model,
  cmd: Extract<Command, { op: 'changeset' }>,
  settle: Settle,
) {
  const projectId = pickProject(model, cmd.actor, cmd.pick);
  const project = model[cmd.actor]!.get(projectId)!;
  const outcome = await settle(() =>
    world.store.changesets.apply({
      principal: world.principals[cmd.actor],
      projectId,
      message: 'faults',
      operations: cmd.ops.map((o) => {
        if (o.op === 'edit')
          return { op: 'edit', filename: o.filename, edits: [{ op: 'append', text: o.text }] };
        if (o.op === 'attach') {
          const content_base64 = Buffer.from(o.content).toString('base64');
          return { op: 'attach', path: o.path, content_base64, content_type: 'application/octet-stream' };
        }
        return o;
      }),
    }),
  );
  if (outcome !== 'ok') return { outcome, expect: { after: model } };
  // What the changeset leaves: its files, and the stored files it deleted (trashed as they were).
  const files = new Map<string, ModelFile & { origin: string | null }>();
  for (const [filename, file] of project.files) files.set(filename, { ...file, origin: filename });
  const deleted: ModelTrashed[] = [];
  for (const o of cmd.ops) {
    // The model holds files only; attachments are checked by `problems` (records, blobs, counters).
    if (o.op === 'attach' || o.op === 'detach') continue;
    const file = files.get(o.filename);
    if (o.op === 'put') {
      files.set(o.filename, {
        content: o.content,
        metadata: file?.metadata ?? null,
        origin: file?.origin ?? null,
      });
    } else if (o.op === 'edit' && file) {
      const content = applyEdits(file.content, [{ op: 'append', text: o.text }], {
        mdx: o.filename.endsWith('.mdx'),
      });
      files.set(o.filename, { ...file, content });
    } else if (o.op === 'delete' && file) {
      files.delete(o.filename);
      if (file.origin !== null) deleted.push({ ...project.files.get(file.origin)!, filename: file.origin });
    } else if (o.op === 'move' && file) {
      files.delete(o.filename);
      files.set(o.to, file);
    }
  }
  const after: ModelProject = {
    ...project,
    files: new Map([...files].map(([name, { content, metadata }]) => [name, { content, metadata }])),
    ...(project.trash && { trash: [...project.trash, ...deleted] }),
  };
  return { outcome, expect: { after: withProject(model, cmd.actor, projectId, after) } };
}

/**
 * A draft (extensions §13) of puts, opened then published: when both resolve, every file is at the
 * draft's text (the last put of a name wins; metadata kept); when either is rejected, by a fault
 * anywhere (the draft's writes, the merge's reads, the changeset's steps), no file changed at all.
 */
async function publishDraftCommand(
  world: World,
  model: Model,
  cmd: Extract<Command, { op: 'publishDraft' }>,
  settle: Settle,
) {
  const projectId = pickProject(model, cmd.actor, cmd.pick);
  const project = model[cmd.actor]!.get(projectId)!;
  const principal = world.principals[cmd.actor];
  const outcome = await settle(async () => {
    const draft = await world.store.drafts.create({
      principal,
      projectId,
      body: { title: 'faults', operations: cmd.puts.map((put) => ({ op: 'put', ...put })) },
    });
    await world.store.drafts.publish({ principal, projectId, draftId: draft.id });
  });
  if (outcome !== 'ok') return { outcome, expect: { after: model } };
  const files = new Map(project.files);
  for (const put of cmd.puts) {
    files.set(put.filename, { content: put.content, metadata: files.get(put.filename)?.metadata ?? null });
  }
  return { outcome, expect: { after: withProject(model, cmd.actor, projectId, { ...project, files }) } };
}

/**
 * An import (extensions §10) into one project of the account, from an archive of Markdown files, an
 * attachment (skipped) and, when some file has metadata, `mdstore.json`. Resolved: every file of the
 * archive is at its content (with the manifest's metadata, else its own), and with `replace` the files
 * the archive lacks are deleted (into the trash of a project with one); a dry run changes nothing.
 * Rejected, by a fault anywhere (the listing of stored files, the changeset's steps): nothing changed.
 */
async function importCommand(
  world: World,
  model: Model,
  cmd: Extract<Command, { op: 'import' }>,
  settle: Settle,
) {
  const projectId = pickProject(model, cmd.actor, cmd.pick);
  const project = model[cmd.actor]!.get(projectId)!;
  const outcome = await settle(() =>
    world.store.projects.import({
      principal: world.principals[cmd.actor],
      projectId,
      mode: cmd.mode,
      dryRun: cmd.dryRun,
      archive: importArchive(cmd.entries),
    }),
  );
  if (outcome !== 'ok' || cmd.dryRun) return { outcome, expect: { after: model } };
  const files = new Map(project.files);
  for (const entry of cmd.entries) {
    const metadata =
      entry.metadata === undefined
        ? (project.files.get(entry.filename)?.metadata ?? null)
        : entry.metadata === null
          ? null
          : JSON.stringify(entry.metadata);
    files.set(entry.filename, { content: entry.content, metadata });
  }
  const deleted: ModelTrashed[] = [];
  if (cmd.mode === 'replace') {
    const named = new Set(cmd.entries.map((entry) => entry.filename));
    for (const [filename, file] of project.files) {
      if (named.has(filename)) continue;
      files.delete(filename);
      deleted.push({ ...file, filename });
    }
  }
  const after: ModelProject = {
    ...project,
    files,
    ...(project.trash && { trash: [...project.trash, ...deleted] }),
  };
  return { outcome, expect: { after: withProject(model, cmd.actor, projectId, after) } };
}

/** The archive as a reader hands it to the core: its entries in order, each read at most once. */
function importArchive(entries: readonly ImportEntry[]): ImportArchive {
  const listed = entries.map((entry) => ({ name: entry.filename, bytes: encoder.encode(entry.content) }));
  listed.push({ name: 'picture.png', bytes: encoder.encode('not Markdown') });
  const described = entries.filter((entry) => entry.metadata !== undefined);
  if (described.length > 0) {
    const files = described.map((entry) => ({ filename: entry.filename, metadata: entry.metadata }));
    listed.push({ name: 'mdstore.json', bytes: encoder.encode(JSON.stringify({ files })) });
  }
  return (async function* () {
    for (const { name, bytes } of listed)
      yield { name, kind: 'file' as const, size: bytes.length, read: async () => bytes };
  })();
}

/**
 * A restore or a removal of an item of an account's trash: the item is chosen among the stored ones
 * (read through the unfaulted records) and matched to the model's by name and content.
 */
async function trashCommand(
  world: World,
  model: Model,
  cmd: Extract<Command, { op: 'trashRestore' | 'trashPurge' }>,
  settle: Settle,
) {
  // Mostly a project whose trash holds something (an empty one only tests the 404).
  const candidates = [...model[cmd.actor]!.entries()].filter(([, project]) => project.trash);
  const holding = candidates.filter(([, project]) => (project.trash?.length ?? 0) > 0);
  const withTrash = (holding.length > 0 && cmd.pick % 4 !== 0 ? holding : candidates).map(([id]) => id);
  const projectId = withTrash.sort()[cmd.pick % Math.max(withTrash.length, 1)];
  const project = projectId === undefined ? undefined : model[cmd.actor]!.get(projectId);
  if (!projectId || !project?.trash) return { outcome: 'no trash', expect: { after: model } };
  const stored = await world.records.listTrash({ projectId, now: world.clock.now(), limit: 100 });
  const target = stored[cmd.pick % Math.max(stored.length, 1)];
  // A missing item is a 404 that must change nothing.
  const trashId = target?.id ?? 'no-such-item';
  const item =
    target &&
    project.trash.find(
      (candidate) =>
        candidate.filename === target.file.filename &&
        sha256Hex(encoder.encode(candidate.content)) === target.file.sha256,
    );
  const principal = world.principals[cmd.actor];
  if (cmd.op === 'trashPurge') {
    const outcome = await settle(() => world.store.trash.delete({ principal, projectId, trashId }));
    const after = item ? withoutTrashed(model, cmd.actor, projectId, item) : model;
    return { outcome, expect: { after } };
  }
  const to = cmd.rename ? 'restored.md' : (item?.filename ?? 'a.md');
  const outcome = await settle(() =>
    world.store.trash.restore({ principal, projectId, trashId, body: cmd.rename ? { to } : {} }),
  );
  const after =
    item && !project.files.has(to) ? withoutTrashed(model, cmd.actor, projectId, item, to) : model;
  return { outcome, expect: { after } };
}

/**
 * Time passes beyond the retention and the reconciler runs: every item goes, each project's trash whole
 * or not at all (one transaction per project; a failed one stays for the next run).
 */
async function expireTrash(world: World, model: Model, settle: Settle) {
  world.clock.advance(TRASH_DAYS * DAY_MS + 1);
  const outcome = await settle(() => world.store.maintenance.reconcile());
  // Reconciliation is many small transactions: a failure may follow a committed purge.
  return { outcome, expect: { after: await afterExpiry(world, model), afterOnFailure: true } };
}

/**
 * The model after a reconciliation: a project whose trash the store no longer holds had it purged
 * (whole: every item of a trash expires together here, and one transaction purges a project's items).
 */
async function afterExpiry(world: World, model: Model): Promise<Model> {
  const after = model.map((projects) => new Map(projects)) as [
    Map<string, ModelProject>,
    Map<string, ModelProject>,
  ];
  for (const projects of after) {
    for (const [id, project] of projects) {
      if (!project.trash || project.trash.length === 0) continue;
      const left = await world.records.listTrash({
        projectId: id,
        now: Number.MIN_SAFE_INTEGER,
        limit: 1000,
      });
      if (left.length === 0) projects.set(id, { ...project, trash: [] });
    }
  }
  return after as Model;
}

async function* chunks(text: string): AsyncIterable<Uint8Array> {
  const bytes = encoder.encode(text);
  for (let offset = 0; offset < bytes.length; offset += 5) yield bytes.slice(offset, offset + 5);
}

/**
 * A project as it was (extensions §16), one changeset: first the clock moves on a second (so that the
 * restore and what follows are later than every time it may go back to), then the same restore is asked
 * as a dry run of the stores without faults, which says what it would create, change and delete; the
 * model after is worked out from that answer and the kept revisions and trash. The restore itself then
 * runs with the step's faults: resolved, the project is that; rejected, nothing changed at all.
 */
async function restoreAsOfCommand(
  world: World,
  model: Model,
  cmd: Extract<Command, { op: 'restoreAsOf' }>,
  settle: Settle,
) {
  // Mostly one of the first times: more has changed since.
  const at = Math.min(cmd.when, world.times.length - 1);
  const asOf = world.times[at]!;
  world.clock.advance(1000);
  // Mostly a project whose files changed since then (the model of then says which), of either account.
  const changedOf = (who: 0 | 1) => {
    const then = world.models[at]![who]!;
    return [...model[who]!.keys()]
      .filter(
        (id) =>
          JSON.stringify([...(then.get(id)?.files ?? [])]) !==
          JSON.stringify([...model[who]!.get(id)!.files]),
      )
      .sort();
  };
  const other = cmd.actor === 0 ? 1 : 0;
  const who = changedOf(cmd.actor).length === 0 && changedOf(other).length > 0 ? other : cmd.actor;
  const changed = changedOf(who);
  const projectId =
    changed.length > 0 && cmd.pick % 4 !== 0
      ? changed[cmd.pick % changed.length]!
      : pickProject(model, who, cmd.pick);
  const principal = world.principals[who];
  const body = { as_of: new Date(asOf).toISOString() };
  let plan: RestoreResult | undefined;
  try {
    plan = await world.plain.restore.asOf({ principal, projectId, body: { ...body, dry_run: true } });
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
  }
  const after = plan ? await restoredModel(world, model, who, projectId, plan, asOf) : model;
  const outcome = await settle(() => world.store.restore.asOf({ principal, projectId, body }));
  if (outcome === 'ok')
    stats.restored += plan ? plan.counts.created + plan.counts.changed + plan.counts.deleted : 0;
  return { outcome, expect: { after } };
}

/** The model after a restore whose dry run answered `plan` (read through the unfaulted stores). */
async function restoredModel(
  world: World,
  model: Model,
  actor: number,
  projectId: string,
  plan: RestoreResult,
  asOf: number,
): Promise<Model> {
  expect(plan.truncated).toBe(false);
  const project = model[actor]!.get(projectId)!;
  const owner = (await world.records.findProjectById({ projectId }))!;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const files = new Map(project.files);
  const trash = project.trash && [...project.trash];
  const put: [string, ModelFile][] = [];
  for (const { filename } of plan.deleted) {
    const file = files.get(filename)!;
    files.delete(filename);
    trash?.push({ ...file, filename });
  }
  for (const change of plan.changed) {
    const name = change.from ?? change.filename;
    const previous = files.get(name)!;
    const stored = (await world.records.findFile({ projectId, filename: name }))!;
    const revision = (await world.records.findRevision({ fileId: stored.id, revision: change.revision }))!;
    const bytes = change.content ? await readStoredContent(world, owner, revision) : null;
    files.delete(name);
    put.push([
      change.filename,
      {
        content: bytes ? decode(bytes) : previous.content,
        metadata: change.metadata ? revision.metadataJson : previous.metadata,
      },
    ]);
  }
  for (const created of plan.created) {
    const item = (await world.records.findTrashItem({ projectId, trashId: created.trashId }))!;
    const revisions = await world.records.listRevisions({ fileId: item.file.id, limit: 100 });
    const revision = revisions.find((r) => r.createdAt <= asOf)!;
    const bytes = (await readStoredContent(world, owner, revision))!;
    put.push([created.filename, { content: decode(bytes), metadata: revision.metadataJson }]);
  }
  for (const [filename, file] of put) files.set(filename, file);
  return withProject(model, actor, projectId, { ...project, files, ...(trash && { trash }) });
}

/** How the stores differ from `model` (read through the inner adapters), or null when they agree. */
async function differences(world: World, model: Model): Promise<string | null> {
  for (const [index, principal] of world.principals.entries()) {
    const active = (await world.records.listProjects({ accountId: principal.accountId })).filter(
      (project) => project.status === 'active',
    );
    const expected = model[index]!;
    if (active.length !== expected.size || active.some((project) => !expected.has(project.id))) {
      return `account ${index}: active projects ${active.map((p) => p.name)} vs ${[...expected.values()].map((p) => p.name)}`;
    }
    for (const project of active) {
      const want = expected.get(project.id)!;
      if (project.name !== want.name)
        return `project ${project.id} named ${project.name}, expected ${want.name}`;
      const files = await world.records.listFiles({ projectId: project.id });
      if (files.length !== want.files.size)
        return `${project.name}: files ${files.map((f) => f.filename)} vs ${[...want.files.keys()]}`;
      for (const file of files) {
        const wanted = want.files.get(file.filename);
        if (!wanted) return `${project.name}: unexpected file ${file.filename}`;
        const bytes = encoder.encode(wanted.content);
        if (file.sha256 !== sha256Hex(bytes) || file.sizeBytes !== bytes.length)
          return `${project.name}/${file.filename}: other content`;
        const metadataOk =
          JSON.stringify(file.metadataJson && JSON.parse(file.metadataJson)) ===
          JSON.stringify(wanted.metadata && JSON.parse(wanted.metadata));
        if (!metadataOk)
          return `${project.name}/${file.filename}: metadata ${file.metadataJson} vs ${wanted.metadata}`;
        const stored = await readStoredContent(world, project, file);
        if (!stored || !Buffer.from(stored).equals(Buffer.from(bytes)))
          return `${project.name}/${file.filename}: stored bytes differ`;
      }
      const trashProblem = await trashDifference(world, project, want);
      if (trashProblem) return trashProblem;
    }
  }
  return null;
}

/** The project's trash (expired items not yet purged included) holds exactly the model's, bytes kept. */
async function trashDifference(
  world: World,
  project: { id: string; name: string; bucketName: string },
  want: ModelProject,
): Promise<string | null> {
  // The model holds files only: detached attachments in the trash (extensions §12) are checked by
  // attachments.faults.test.ts (and by `problems`: their blobs are held).
  const items = (
    await world.records.listTrash({
      projectId: project.id,
      now: Number.MIN_SAFE_INTEGER,
      limit: 1000,
    })
  ).filter((item) => !isAttachmentItem(item));
  const describe = (filename: string, content: string) => `${filename}:${sha256Hex(encoder.encode(content))}`;
  const stored = items.map((item) => `${item.file.filename}:${item.file.sha256}`).sort();
  const wanted = (want.trash ?? []).map((item) => describe(item.filename, item.content)).sort();
  if (JSON.stringify(stored) !== JSON.stringify(wanted))
    return `${project.name}: trash ${stored.join(',')} vs ${wanted.join(',')}`;
  for (const item of items) {
    if (!(await readStoredContent(world, project, item.file)))
      return `${project.name}: trashed ${item.file.filename} lost its content`;
  }
  return null;
}

async function problems(world: World, settled = false) {
  return storeProblems({
    records: world.records,
    blobs: world.blobs,
    buckets: world.buckets,
    accountIds: world.principals.map((principal) => principal.accountId),
    settled,
  });
}

const stats = {
  sequences: 0,
  steps: 0,
  /** Files that resolved restores as of brought back, changed or deleted. */
  restored: 0,
  rejected: 0,
  leftDeleting: 0,
  injected: new Map<string, number>(),
  outcomes: new Map<string, number>(),
};

async function runSequence(steps: [Command, StepFaults][]) {
  const { world, model: initial } = await newWorld();
  let model = initial;
  stats.sequences++;
  // With restores as of in the sequence, each step runs a second after the one before: there are states
  // of the past to go back to (without, the clock moves as it always did).
  const ticking = steps.some(([cmd]) => cmd.op === 'restoreAsOf');
  world.times.push(world.clock.now());
  world.models.push(model);
  for (const [cmd, faults] of steps) {
    stats.steps++;
    if (ticking) world.clock.advance(1000);
    const time = world.clock.now();
    world.faults.arm(faults);
    const result = await run(world, model, cmd);
    world.faults.disarm();
    const outcomeKey = `${cmd.op}:${result.outcome}`;
    stats.outcomes.set(outcomeKey, (stats.outcomes.get(outcomeKey) ?? 0) + 1);
    const before = await differences(world, model);
    if (result.outcome === 'ok') {
      const after = await differences(world, result.expect.after);
      expect(after, `${cmd.op} resolved but did not happen whole`).toBeNull();
      model = result.expect.after;
      await result.check?.();
    } else {
      stats.rejected++;
      if (before !== null) {
        const after =
          result.expect.afterOnFailure || AFTER_COMMIT
            ? await differences(world, result.expect.after)
            : 'not allowed';
        expect(after, `${cmd.op} rejected (${result.outcome}) and changed the state: ${before}`).toBeNull();
        model = result.expect.after;
        stats.leftDeleting++;
      }
    }
    expect(await problems(world), `after ${cmd.op} (${result.outcome})`).toEqual([]);
    // The files as of `time` are those after this step (and any step before it at that time).
    if (world.times.at(-1) === time) world.models[world.models.length - 1] = model;
    else {
      world.times.push(time);
      world.models.push(model);
    }
  }
  for (const fault of world.faults.injected) {
    const key = `${fault.port}.${fault.method}${fault.point === 'call' ? '' : `@${fault.point}`}:${fault.action}`;
    stats.injected.set(key, (stats.injected.get(key) ?? 0) + 1);
  }
  // Faults off: reconciliation leaves nothing behind, and the state is still the model's.
  world.clock.advance(WRITE_DEADLINE_MS + 1);
  await world.store.maintenance.reconcile();
  expect(await problems(world, true)).toEqual([]);
  model = await afterExpiry(world, model);
  expect(await differences(world, model)).toBeNull();
  // The store keeps serving: a write and a read succeed for both accounts.
  for (const [index, principal] of world.principals.entries()) {
    const projectId = pickProject(model, index, 0);
    const view = await world.store.files.upload({
      principal,
      projectId,
      filename: 'final.md',
      content: chunks('# ok'),
    });
    const download = await world.store.files.download({ principal, projectId, filename: view.filename });
    expect(new TextDecoder().decode(await readAll(download.content))).toBe('# ok');
  }
}

describe('what a write promises when a store fails (property)', () => {
  afterAll(() => {
    const injected = [...stats.injected.entries()].sort((a, b) => b[1] - a[1]);
    const total = injected.reduce((sum, [, n]) => sum + n, 0);
    console.info(
      `[faults] ${stats.sequences} sequences, ${stats.steps} steps, ${stats.rejected} rejected, ` +
        `${stats.leftDeleting} deletions left 'deleting', ${stats.restored} files restored as of, ` +
        `${total} faults injected:\n  ` +
        injected.map(([key, n]) => `${key} ${n}`).join('\n  ') +
        `\n outcomes:\n  ${[...stats.outcomes.entries()]
          .sort()
          .map(([key, n]) => `${key} ${n}`)
          .join('\n  ')}`,
    );
  });

  it('resolved writes happened whole, rejected ones left nothing partial, reconcile cleans up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(command, stepFaults), { minLength: 1, maxLength: 14 }), runSequence),
      { numRuns: RUNS },
    );
    // 200 sequences of up to 14 writes (drafts and attachments among them): ~20 s alone, more beside
    // the other test files on 2 cores.
  }, 180_000);

  it('found by it: a draft publish whose read after the commit failed answered an error with the files written', async () => {
    // The counterexample a CI run found (the publish built its answer from reads after its commit; a
    // fault there made a committed publish answer STORE_UNAVAILABLE). Replayed by its seed and path.
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(baseCommand, baseStepFaults), { minLength: 1, maxLength: 14 }),
        runSequence,
      ),
      { seed: -1632407442, path: '134:6:6:6:6:6:7:11:11:11:11:11:11:11:11:41:38:38:38' },
    );
  });
});
