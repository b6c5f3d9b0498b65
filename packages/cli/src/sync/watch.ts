import { type FSWatcher, watch } from 'node:fs';
import { MdStoreApiError } from '@mdstore/client';
import { type SyncOptions, type SyncReport, syncFolder } from './engine.js';
import { localExists, readLocal, scanLocal } from './local.js';
import { isConflictCopy, isSyncable } from './names.js';
import { readState, type SyncState } from './state.js';

export interface WatchOptions extends Omit<SyncOptions, 'dryRun' | 'progress'> {
  /** Ends the watch: the running sync finishes, then `watchFolder` returns. */
  readonly signal: AbortSignal;
  /** Each sync round's report (the first one is the initial sync). */
  readonly onSync: (report: SyncReport) => void;
  /** A round or a feed read that failed and will be tried again. */
  readonly onError: (error: unknown) => void;
  /** Quiet time after the last local or remote change before a sync runs. Default 300 ms. */
  readonly debounceMs?: number;
  /** How often the folder is scanned when it cannot be watched (or `scan` is forced). Default 2 s. */
  readonly scanIntervalMs?: number;
  /** `scan`: no `fs.watch`, a periodic scan (tests, file systems without notifications). */
  readonly localWatch?: 'auto' | 'scan';
  /** Seconds each long poll of the feed is held. Default 30. */
  readonly waitSeconds?: number;
  /** First pause after a failed round or feed read, doubling up to 10 s. Default 500 ms. */
  readonly backoffMs?: number;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * `mdstore sync --watch`: one sync, then a sync again whenever the project's feed (extensions §7) or the
 * folder says something changed. Every round is a whole `syncFolder` (same decision table, same conflict
 * rules, conditional writes); the feed and the watcher only decide WHEN a round runs. Events the watch
 * caused itself (the remote etag or the local digest is the one the state just recorded) start nothing.
 * Returns the last round's report when `signal` aborts; throws when the feed refuses for good (`401`,
 * `403`, `404`); a `410` (retention passed the resume point) leads to a full round and a new resume point.
 */
export async function watchFolder(options: WatchOptions): Promise<SyncReport | undefined> {
  const watcher = new FolderWatch(options);
  return watcher.run();
}

class FolderWatch {
  private projectId: string | undefined;
  private last: SyncReport | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Changes seen during the running round, each asked after it whether it was the round's own. */
  private pending: Array<() => Promise<boolean>> = [];
  private backoff: number;
  private readonly stopped: Promise<void>;

  constructor(private readonly options: WatchOptions) {
    this.backoff = options.backoffMs ?? 500;
    this.stopped = new Promise((resolve) => {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  async run(): Promise<SyncReport | undefined> {
    const { signal } = this.options;
    // The feed's end is read BEFORE the first round: whatever commits during it is followed afterwards.
    let since = await this.untilDone(() => this.feedEnd());
    if (since === undefined) return this.last;
    await this.round();
    const stopLocal = this.watchLocal();
    try {
      while (!signal.aborted) {
        try {
          await this.follow(since);
        } catch (error) {
          if (!(error instanceof MdStoreApiError) || error.status !== 410) throw error;
          this.options.onError(error);
          const end = await this.untilDone(() => this.feedEnd());
          if (end === undefined) break;
          since = end;
          await this.round();
          continue;
        }
        break;
      }
    } finally {
      stopLocal();
      clearTimeout(this.timer);
      await this.running;
    }
    return this.last;
  }

  /** Pulls what the feed says changed remotely; returns when `signal` aborts. */
  private async follow(since: number): Promise<void> {
    const { client, signal } = this.options;
    const projectId = await this.project();
    for await (const event of client.changes.follow({
      since,
      projectId,
      signal,
      waitSeconds: this.options.waitSeconds ?? 30,
      backoffMs: this.options.backoffMs ?? 500,
    })) {
      if (event.filename === null) {
        if (event.type.startsWith('file.')) this.schedule();
        continue;
      }
      if (!isSyncable(event.filename) && (event.from === null || !isSyncable(event.from))) continue;
      const { type, filename, from, etag } = event;
      this.consider(() => this.isOwnRemote(type, filename, from, etag));
    }
  }

  /** The feed's current end for the project: read page after page with no wait. */
  private async feedEnd(): Promise<number> {
    const projectId = await this.project();
    let since = 0;
    for (;;) {
      const page = await this.options.client.changes.list({ since, limit: 1000, project_id: projectId });
      since = page.next_since;
      if (page.changes.length < 1000) return since;
    }
  }

  private async project(): Promise<string> {
    if (this.projectId) return this.projectId;
    const state = await readState(this.options.root);
    const projectId = state?.project_id ?? this.options.projectId;
    if (projectId === undefined) throw new TypeError('a first sync needs the project');
    this.projectId = projectId;
    return projectId;
  }

  /** A remote event the state already reflects: the etag we recorded, or a delete of what we do not hold. */
  private async isOwnRemote(
    type: string,
    filename: string,
    from: string | null,
    etag: string | null,
  ): Promise<boolean> {
    const files = (await this.state())?.files ?? {};
    if (from !== null && files[from] !== undefined) return false;
    const entry = files[filename];
    if (type === 'file.deleted') return entry === undefined;
    return entry !== undefined && etag !== null && entry.etag === etag;
  }

  /** A local change the state already reflects: the digest it recorded, or a file gone it never held. */
  private async isOwnLocal(name: string): Promise<boolean> {
    const entry = (await this.state())?.files[name];
    const now = await readLocal(this.options.root, name).catch(() => undefined);
    if (now === undefined) return entry === undefined;
    return entry?.sha256 === now.sha256 && entry.conflict === undefined;
  }

  private async state(): Promise<SyncState | undefined> {
    return readState(this.options.root).catch(() => undefined);
  }

  /** Watches the folder (recursive `fs.watch`, else a periodic scan); returns the stop function. */
  private watchLocal(): () => void {
    const { root } = this.options;
    if (this.options.localWatch !== 'scan') {
      let watcher: FSWatcher | undefined;
      try {
        watcher = watch(root, { recursive: true }, (_event, filename) => {
          const name = filename?.toString().split('\\').join('/');
          if (name === undefined) return this.schedule();
          if (name.split('/').some((part) => part.startsWith('.'))) return; // state, lock, hidden
          if (isConflictCopy(name)) {
            // Written by a round: nothing to do; removed by the user: the conflict is resolved.
            return this.consider(() => localExists(root, name));
          }
          if (!isSyncable(name)) return this.schedule(); // a folder renamed or removed: look again
          this.consider(() => this.isOwnLocal(name));
        });
      } catch {
        watcher = undefined; // recursive watching unsupported here: scan instead
      }
      if (watcher) {
        const active = watcher;
        active.on('error', () => {
          active.close();
          stop = this.scanLocalPeriodically();
        });
        let stop = () => active.close();
        return () => stop();
      }
    }
    return this.scanLocalPeriodically();
  }

  private scanLocalPeriodically(): () => void {
    const { root } = this.options;
    let busy = false;
    const interval = setInterval(async () => {
      if (busy || this.running) return;
      busy = true;
      try {
        const [local, state] = await Promise.all([scanLocal(root), this.state()]);
        const files = state?.files ?? {};
        const differs =
          [...local.files.values()].some((file) => files[file.name]?.sha256 !== file.sha256) ||
          Object.keys(files).some((name) => !local.files.has(name) && files[name]?.conflict === undefined);
        if (differs) this.schedule();
      } catch (error) {
        this.options.onError(error);
      } finally {
        busy = false;
      }
    }, this.options.scanIntervalMs ?? 2_000);
    return () => clearInterval(interval);
  }

  /**
   * A change seen, unless `isOwn` says the state already reflects it. While a round runs the question
   * waits for its end: the round may be the very writer, and records its etag or digest only as it ends.
   */
  private consider(isOwn: () => Promise<boolean>): void {
    if (this.running) {
      this.pending.push(isOwn);
      return;
    }
    void isOwn().then(
      (own) => own || this.schedule(),
      () => this.schedule(),
    );
  }

  /** A round after the quiet time; one at a time (a change during a round runs one more after it). */
  private schedule(delayMs = this.options.debounceMs ?? 300): void {
    if (this.options.signal.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.round(), delayMs);
  }

  private round(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        const { signal: _signal, onSync: _onSync, onError: _onError, ...sync } = this.options;
        const report = await syncFolder({ ...sync, ...(this.projectId && { projectId: this.projectId }) });
        this.projectId = report.project_id;
        this.last = report;
        this.backoff = this.options.backoffMs ?? 500;
        this.options.onSync(report);
      } catch (error) {
        this.options.onError(error);
        this.again = true;
        const pause = this.backoff;
        this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, pause)), this.stopped]);
      } finally {
        this.running = undefined;
      }
      const checks = this.pending.splice(0);
      for (const isOwn of checks) {
        if (this.again) break;
        if (!(await isOwn().catch(() => false))) this.again = true;
      }
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    })();
    return this.running;
  }

  /** Tries `work` again after growing pauses until it succeeds; undefined when `signal` aborts first. */
  private async untilDone<T>(work: () => Promise<T>): Promise<T | undefined> {
    for (let pause = this.options.backoffMs ?? 500; !this.options.signal.aborted; ) {
      try {
        return await work();
      } catch (error) {
        if (error instanceof MdStoreApiError && [401, 403, 404].includes(error.status)) throw error;
        this.options.onError(error);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, pause)), this.stopped]);
        pause = Math.min(pause * 2, MAX_BACKOFF_MS);
      }
    }
    return undefined;
  }
}
