export * from './archive.js';
export * from './executor.js';
export * from './listing.js';
export * from './records.js';
export { type SqlRecords, sqlRecords } from './repository/index.js';
export * from './search.js';
export * from './table.js';
