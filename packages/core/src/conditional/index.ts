export { formatHttpDate, parseHttpDate, truncateToSecond } from './dates.js';
export { formatReprDigest, parseDigestField, parseSha256Hex, type Sha256Field } from './digests.js';
export {
  type EntityTag,
  type EntityTagList,
  formatEntityTag,
  parseEntityTag,
  parseEntityTagList,
  strongMatch,
  weakMatch,
} from './entity-tags.js';
export {
  type CurrentValidators,
  evaluatePreconditions,
  hasIfMatch,
  type PreconditionHeaders,
  type PreconditionMethod,
  type PreconditionOutcome,
  type Preconditions,
  parsePreconditions,
} from './preconditions.js';
export {
  type ByteRange,
  contentRangeHeader,
  ifRangeHolds,
  parseRange,
  type RangeRequest,
  unsatisfiedRangeHeader,
} from './ranges.js';
