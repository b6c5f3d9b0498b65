/**
 * The work bounds of a changeset (extensions §9; issue 34), beside its size rules (1–1000 operations,
 * `CHANGESET_LIMITS.contentFactor` × `maxFileBytes` of put content in all, validation/changesets.ts).
 */
export const CHANGESET_WORK = {
  /**
   * Code units of content worked on (encoded, hashed, tokenized for search, parsed for links) between
   * two turns of the event loop: about 40–70 ms of CPU, whatever the number of files they are spread on.
   */
  unitsPerTurn: 256 * 1024,
} as const;
