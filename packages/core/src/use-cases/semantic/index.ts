export {
  createSemanticIndexer,
  type IndexerStepReport,
  type IndexerTimers,
  runSemanticIndexer,
  type SemanticIndexer,
  type SemanticIndexerOptions,
} from './indexer.js';
export { type SearchStatus, searchStatus } from './status.js';
export { scanVectors, type VectorHit, type VectorScanReport } from './vector-scan.js';
