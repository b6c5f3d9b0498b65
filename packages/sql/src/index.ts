export * from './listing.js';
export * from './records.js';
export * from './search.js';
export * from './table.js';
