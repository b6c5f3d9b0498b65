/**
 * The bounds of work on user content, in estimated nanoseconds of CPU (work-budget.ts, cost.ts): the
 * most one step may hold the event loop, and the most one request may spend in all.
 */
export const STEP_WORK_LIMIT = 100_000_000;
export const WORK_BUDGET = 3_000_000_000;
