/** The bounds of Delete Project (issue 34), defined once. */
export const PROJECT_DELETION_LIMITS = Object.freeze({
  /**
   * Record rows (files, revisions, inline contents, trash items, attachments, search and link index
   * entries) one purge transaction removes at most.
   */
  batchRows: 500,
  /**
   * Purge transactions one Delete Project request runs at most before it answers; a larger project's
   * remaining rows and its bucket are removed by the maintenance loop (reconciliation), batch by batch.
   */
  requestBatches: 4,
});
