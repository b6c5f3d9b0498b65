import type { LinkRecord, LinkTargetRecord } from '../model/records.js';
import { wikiExactNames } from './paths.js';

export type BrokenReason = 'missing' | 'ambiguous' | 'anchor';

export interface Resolution {
  /** The file the link points at, or null (missing, or several files match a wiki link). */
  readonly target: LinkTargetRecord | null;
  /** Whether the anchor names a heading of the target; null without an anchor or a target. */
  readonly anchorFound: boolean | null;
  readonly broken: BrokenReason | null;
}

/** The names and stems to load (`listLinkTargets`) to resolve these links, written in `source`. */
export function targetKeys(
  links: readonly LinkRecord[],
  source: string,
): { filenames: string[]; stems: string[] } {
  const filenames = new Set<string>();
  const stems = new Set<string>();
  for (const link of links) {
    // `[[#heading]]` is a link to its own file.
    if (link.kind === 'wiki' && link.path === null) filenames.add(source);
    if (link.path === null) continue;
    if (link.kind === 'markdown') filenames.add(link.path);
    else {
      for (const name of wikiExactNames(link.path)) filenames.add(name);
      if (link.stem !== null) stems.add(link.stem);
    }
  }
  return { filenames: [...filenames], stems: [...stems] };
}

/** Loaded targets, by name and by stem. */
export class TargetIndex {
  readonly #byName = new Map<string, LinkTargetRecord>();
  readonly #byStem = new Map<string, LinkTargetRecord[]>();

  constructor(targets: readonly LinkTargetRecord[]) {
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
   * its text (wiki).
   */
  resolve(link: LinkRecord, source: string): Resolution {
    let target: LinkTargetRecord | null = null;
    if (link.kind === 'markdown') {
      target = link.path === null ? null : (this.#byName.get(link.path) ?? null);
    } else if (link.path === null) {
      target = this.#byName.get(source) ?? null;
    } else {
      const exact = wikiExactNames(link.path)
        .map((name) => this.#byName.get(name))
        .find(Boolean);
      if (exact) target = exact;
      else {
        const matches = link.stem === null ? [] : (this.#byStem.get(link.stem) ?? []);
        if (matches.length > 1) return { target: null, anchorFound: null, broken: 'ambiguous' };
        target = matches[0] ?? null;
      }
    }
    if (target === null) return { target: null, anchorFound: null, broken: 'missing' };
    if (link.anchor === null || link.anchor === '') return { target, anchorFound: null, broken: null };
    const found =
      link.kind === 'markdown' ? target.slugs.includes(link.anchor) : target.headings.includes(link.anchor);
    return { target, anchorFound: found, broken: found ? null : 'anchor' };
  }
}
