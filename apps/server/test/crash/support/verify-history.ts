import { isDeepStrictEqual } from 'node:util';
import { withRevision } from './history.js';
import { type FileState, type JsonObject, type ProjectModel, sha256 } from './model.js';
import type { apiClient, Checker, VerifyInput } from './verify.js';

/**
 * The history checks after each restart (extensions §5): every acknowledged revision is kept, with its
 * content and metadata, until `keep_revisions` newer ones exist, and readable byte for byte; none is
 * pruned early and none is kept beyond; a move cut off by the kill left the file under exactly one name.
 */

interface RevisionJson {
  revision: number;
  sha256: string;
  metadata: JsonObject | null;
  size_bytes: number;
}

/** Revisions read back in full per file and restart (all are checked in the list). */
const READS_PER_FILE = 3;

/** The version seen after a restart, continuing the history of the version it matched. */
export const observedVersion = (seen: FileState, matched: FileState | null): FileState =>
  withRevision({ ...seen, history: matched?.history ?? [] }, seen.revision);

export function checkInFlightMoves(input: VerifyInput, checker: Checker, project: ProjectModel): void {
  for (const move of input.cycle.inFlightMoves) {
    if (move.projectId !== project.id) continue;
    checker.check(
      project.files.has(move.from) !== project.files.has(move.to),
      () =>
        `move of ${project.id}/${move.from} to ${move.to} cut off by the kill left the file under ` +
        `${project.files.has(move.from) ? 'both names' : 'neither name'}`,
    );
  }
}

export async function verifyHistories(
  input: VerifyInput,
  checker: Checker,
  api: ReturnType<typeof apiClient>,
  project: ProjectModel,
  keep: number,
): Promise<void> {
  project.keepRevisions = keep;
  const base = `/api/projects/${project.id}/files`;
  for (const [name, state] of project.files) {
    const current = state.revision;
    if (current === undefined) continue;
    const path = `${base}/${encodeURIComponent(name)}/revisions`;
    const listed = await api.get<{ revisions: RevisionJson[]; next_cursor: string | null }>(
      `${path}?limit=1000`,
    );
    const numbers = listed.revisions.map((revision) => revision.revision);
    const oldest = Math.max(1, current - keep + 1);
    const expected = Array.from({ length: current - oldest + 1 }, (_, i) => current - i);
    checker.check(
      isDeepStrictEqual(numbers, expected) && listed.next_cursor === null,
      () => `${project.id}/${name}: revisions kept ${JSON.stringify(numbers)}, expected ${oldest}…${current}`,
    );
    const byNumber = new Map(listed.revisions.map((revision) => [revision.revision, revision]));
    const kept = (state.history ?? []).filter((version) => version.revision >= oldest);
    for (const version of kept) {
      const item = byNumber.get(version.revision);
      checker.check(
        item !== undefined &&
          item.sha256 === version.sha256 &&
          item.size_bytes === version.content.length &&
          isDeepStrictEqual(item.metadata, version.metadata),
        () =>
          `${project.id}/${name}: acknowledged revision ${version.revision} is ${item ? 'different' : 'missing'}`,
      );
      input.stats.revisionsVerified++;
    }
    for (const version of kept.slice(-READS_PER_FILE)) {
      const bytes = await api.download(`${path}/${version.revision}`);
      checker.check(
        sha256(bytes) === version.sha256,
        () => `${project.id}/${name}: revision ${version.revision} reads ${bytes.length} other bytes`,
      );
    }
    // Pruned versions need not be remembered any more.
    project.files.set(name, { ...state, history: kept });
  }
}
