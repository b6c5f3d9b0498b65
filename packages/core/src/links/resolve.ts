import type { LinkRecord, LinkTargetRecord } from '../model/records.js';
import { isLinkedPath, wikiExactNames } from './paths.js';

export type BrokenReason = 'missing' | 'ambiguous' | 'anchor';

/** An attachment a link may name (extensions §12), by its exact path. */
export interface AttachmentTarget {
  readonly path: string;
  readonly contentType: string;
}

export interface Resolution {
  /** The file the link points at, or null (missing, or several files match a wiki link). */
  readonly target: LinkTargetRecord | null;
  /** The attachment the link points at instead of a file, or null. */
  readonly attachment: AttachmentTarget | null;
  /** Whether the anchor names a heading of the target; null without an anchor or a target. */
  readonly anchorFound: boolean | null;
  readonly broken: BrokenReason | null;
}

/**
 * The names and stems to load (`listLinkTargets`) to resolve these links, written in `source`, and the
 * attachments' paths and names (`findAttachments`).
 */
export function targetKeys(
  links: readonly LinkRecord[],
  source: string,
): { filenames: string[]; stems: string[]; attachments: string[]; attachmentNames: string[] } {
  const filenames = new Set<string>();
  const stems = new Set<string>();
  const attachments = new Set<string>();
  const attachmentNames = new Set<string>();
  for (const link of links) {
    // `[[#heading]]` is a link to its own file.
    if (link.kind === 'wiki' && link.path === null) filenames.add(source);
    if (link.path === null) continue;
    // A path without `.md`/`.mdx` may name an attachment (by its exact path).
    if (!isLinkedPath(link.path)) attachments.add(link.path);
    if (link.kind === 'markdown') filenames.add(link.path);
    else {
      for (const name of wikiExactNames(link.path)) filenames.add(name);
      if (link.stem !== null) stems.add(link.stem);
      // A wiki link may name an attachment by its last segment, as it names a file (extensions §12).
      if (!isLinkedPath(link.path)) attachmentNames.add(lastSegment(link.path));
    }
  }
  return {
    filenames: [...filenames],
    stems: [...stems],
    attachments: [...attachments],
    attachmentNames: [...attachmentNames],
  };
}

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Loaded targets, by name and by stem; attachments by path. */
export class TargetIndex {
  readonly #byName = new Map<string, LinkTargetRecord>();
  readonly #byStem = new Map<string, LinkTargetRecord[]>();
  readonly #attachments = new Map<string, AttachmentTarget>();
  readonly #attachmentsByName = new Map<string, AttachmentTarget[]>();

  constructor(targets: readonly LinkTargetRecord[], attachments: readonly AttachmentTarget[] = []) {
    for (const attachment of attachments) {
      if (this.#attachments.has(attachment.path)) continue;
      this.#attachments.set(attachment.path, attachment);
      const name = lastSegment(attachment.path);
      this.#attachmentsByName.set(name, [...(this.#attachmentsByName.get(name) ?? []), attachment]);
    }
    for (const target of targets) {
      this.#byName.set(target.filename, target);
      if (target.stem !== null) {
        const same = this.#byStem.get(target.stem) ?? [];
        if (!same.includes(target)) same.push(target);
        this.#byStem.set(target.stem, same);
      }
    }
  }

  byName(filename: string): LinkTargetRecord | undefined {
    return this.#byName.get(filename);
  }

  /**
   * Extensions §9: a Markdown link names its file; a wiki link names the exact filename, with or
   * without extension, else the one file whose last segment matches (none or several: unresolved);
   * `[[#heading]]` is its own file. An anchor matches a heading by GitHub's slug rule (Markdown) or by
   * its text (wiki). An attachment (extensions §12) is named as a file is: by its exact path (a wiki
   * link's target as written comes before the same name with `.md`/`.mdx`), and by a wiki link also by
   * its last segment (`![[diagram.png]]` for `assets/diagram.png`), the files and attachments of that
   * name counted together (several: unresolved); its anchor is not checked.
   */
  resolve(link: LinkRecord, source: string): Resolution {
    let target: LinkTargetRecord | null = null;
    if (link.kind === 'markdown') {
      if (link.path !== null) {
        target = this.#byName.get(link.path) ?? null;
        const attachment = target ? undefined : this.#attachments.get(link.path);
        if (attachment) return { target: null, attachment, anchorFound: null, broken: null };
      }
    } else if (link.path === null) {
      target = this.#byName.get(source) ?? null;
    } else {
      const exact = wikiExactNames(link.path)
        .map((name) => this.#byName.get(name) ?? this.#attachments.get(name))
        .find(Boolean);
      if (exact && 'path' in exact)
        return { target: null, attachment: exact, anchorFound: null, broken: null };
      if (exact) target = exact;
      else {
        const matches = link.stem === null ? [] : (this.#byStem.get(link.stem) ?? []);
        const named = isLinkedPath(link.path)
          ? []
          : (this.#attachmentsByName.get(lastSegment(link.path)) ?? []);
        if (matches.length + named.length > 1)
          return { target: null, attachment: null, anchorFound: null, broken: 'ambiguous' };
        if (named[0]) return { target: null, attachment: named[0], anchorFound: null, broken: null };
        target = matches[0] ?? null;
      }
    }
    if (target === null) return { target: null, attachment: null, anchorFound: null, broken: 'missing' };
    if (link.anchor === null || link.anchor === '') {
      return { target, attachment: null, anchorFound: null, broken: null };
    }
    const found =
      link.kind === 'markdown' ? target.slugs.includes(link.anchor) : target.headings.includes(link.anchor);
    return { target, attachment: null, anchorFound: found, broken: found ? null : 'anchor' };
  }
}
