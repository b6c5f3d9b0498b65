// The library behind the `mdstore` command: run a command line in-process, or sync a folder.

export type { Io } from './context.js';
export { EXIT } from './context.js';
export { run } from './run.js';
export {
  type Progress,
  type SyncItem,
  type SyncOptions,
  type SyncReport,
  syncFolder,
} from './sync/engine.js';
export { isSyncable, STATE_FILE } from './sync/names.js';
export { type Decision, decide } from './sync/plan.js';
export type { StateEntry, SyncState } from './sync/state.js';
export { type TransferOptions, type TransferReport, transferFolder } from './sync/transfer.js';
export { type WatchOptions, watchFolder } from './sync/watch.js';
