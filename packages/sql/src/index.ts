export * from './records.js';
export * from './table.js';
