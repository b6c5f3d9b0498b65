/**
 * Fault injection around the ports, for tests that check what a write promises when a dependency fails.
 * Wrap the real adapters, give the wrappers to the core, and inspect the inner adapters afterwards.
 */
export { withBlobFaults } from './blobs.js';
export {
  breakingStream,
  type FaultAction,
  type FaultCall,
  type FaultPlan,
  type FaultPoint,
  type FaultPort,
  type FaultRule,
  hanging,
  type InjectedFault,
  noFaults,
  pausing,
  randomFaults,
  scriptedFaults,
  seededRandom,
  systemError,
  throwing,
  unavailableError,
} from './plan.js';
export { withRateLimiterFaults } from './rate-limiter.js';
export { withRecordsFaults } from './records.js';
