import { isAlias, isNode, type Node, parseDocument, stringify, visit } from 'yaml';
import { frontMatterLength } from '../markdown/front-matter.js';
import { parseFrontmatter } from '../search/frontmatter.js';
import { jsonEqual, keyWinner, unionKeys } from './equal.js';
import { mergeText, splitLinesKeepingEnds } from './text.js';
import type { ConflictHunk, TextMerge } from './types.js';

/**
 * Whole Markdown documents merged three ways (extensions §13): the YAML front matter key by key, the
 * body by lines (diff3, see text.ts). A text that is unchanged on one side gives the other side byte
 * for byte; a real merge rewrites nothing it does not have to:
 *
 * - Front matter changed on both sides: each top-level key follows the rule of `keyWinner`. When the
 *   block's lines merge cleanly to the same values, those lines are the result (every comment and
 *   quote kept); otherwise (two keys changed on adjacent lines, say) current's block is taken and the
 *   keys proposed changed are set in it (the yaml package's `Document.set`/`delete`, which keeps
 *   current's other lines and comments, writes changed values in its own style, and ends lines with LF).
 * - A block that is not valid YAML or not a mapping on some side (§3: it is still front matter) is
 *   merged by lines like the body.
 * - A conflicting key's hunk shows `key: value` on each side ('' where absent), at the key's line in
 *   base (1 when base lacks it).
 */
export function mergeDocument(base: string, current: string, proposed: string): TextMerge {
  if (current === base) return { kind: 'clean', text: proposed, merged: false };
  if (proposed === base || proposed === current) return { kind: 'clean', text: current, merged: false };
  const [b, c, p] = [split(base), split(current), split(proposed)];
  const head = mergeHead(b, c, p);
  const body = mergeText(b.body, c.body, p.body, lineCount(b.head));
  const hunks = [
    ...(head.kind === 'conflict' ? head.hunks : []),
    ...(body.kind === 'conflict' ? body.hunks : []),
  ];
  if (hunks.length > 0) return { kind: 'conflict', hunks };
  if (head.kind !== 'clean' || body.kind !== 'clean') throw new Error('unreachable');
  return { kind: 'clean', text: head.text + body.text, merged: true };
}

interface Parts {
  /** BOM (if any) and front matter block with its closing line's ending; '' when none. */
  readonly head: string;
  readonly body: string;
}

function split(text: string): Parts {
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const length = bom + frontMatterLength(text.slice(bom));
  return { head: text.slice(0, length), body: text.slice(length) };
}

const lineCount = (text: string): number => splitLinesKeepingEnds(text).length;

type Values = Readonly<Record<string, unknown>>;

/** The front matter's values: {} for none, null when it is not a YAML mapping with a JSON form. */
function valuesOf(head: string): Values | null {
  const block = head.replace(/^\uFEFF/, '');
  if (block === '') return {};
  const values = parseFrontmatter(block);
  if (values !== null) return values;
  // An empty block (or one of comments only) holds no keys: {} for a key-by-key merge.
  const inner = block
    .slice(/^---[ \t]*(?:\r\n|\n|\r)/.exec(block)?.[0].length ?? 0)
    .replace(/(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\r)?$/, '');
  const doc = parseDocument(inner.replace(/\r\n?/g, '\n'), { version: '1.2', schema: 'core' });
  return doc.errors.length === 0 && doc.contents === null ? {} : null;
}

function mergeHead(b: Parts, c: Parts, p: Parts): TextMerge {
  if (c.head === b.head) return { kind: 'clean', text: p.head, merged: false };
  if (p.head === b.head || p.head === c.head) return { kind: 'clean', text: c.head, merged: false };
  const [bv, cv, pv] = [valuesOf(b.head), valuesOf(c.head), valuesOf(p.head)];
  if (bv === null || cv === null || pv === null) return mergeText(b.head, c.head, p.head);

  const merged: Record<string, unknown> = {};
  const fromProposed: string[] = [];
  const hunks: ConflictHunk[] = [];
  for (const key of unionKeys(cv, pv, bv)) {
    const at = (values: Values) => (Object.hasOwn(values, key) ? values[key] : undefined);
    const winner = keyWinner(at(bv), at(cv), at(pv));
    if (winner === 'conflict') {
      hunks.push({
        line: keyLine(b.head, key),
        base: keyText(key, at(bv)),
        current: keyText(key, at(cv)),
        draft: keyText(key, at(pv)),
      });
      continue;
    }
    const value = at(winner === 'current' ? cv : pv);
    if (value !== undefined) merged[key] = value;
    if (winner === 'proposed' && !jsonEqual(at(cv), at(pv))) fromProposed.push(key);
  }
  if (hunks.length > 0) return { kind: 'conflict', hunks };

  const byLines = mergeText(b.head, c.head, p.head);
  if (byLines.kind === 'clean' && jsonEqual(valuesOf(byLines.text), merged)) return byLines;
  const text = rewriteBlock(c.head || p.head || b.head, fromProposed, pv, p.head);
  return { kind: 'clean', text, merged: true };
}

/** A block's parts: BOM, opening line, the YAML inside, closing line. */
function blockParts(head: string) {
  const bom = head.startsWith('\uFEFF') ? '\uFEFF' : '';
  const block = head.slice(bom.length);
  const opening = /^---[ \t]*(?:\r\n|\n|\r)/.exec(block)?.[0] ?? '---\n';
  const lines = splitLinesKeepingEnds(block);
  const closing = block === '' ? '---\n' : (lines[lines.length - 1] ?? '---\n');
  const inner = block === '' ? '' : block.slice(opening.length, block.length - closing.length);
  const doc = parseDocument(inner.replace(/\r\n?/g, '\n'), { version: '1.2', schema: 'core' });
  return { bom, opening, closing, doc };
}

/**
 * `head` with `keys` set as proposed has them (deleted when absent there): proposed's own node, so its
 * style (a flow list stays a flow list) and comments come along; its plain value when the node cannot
 * be moved (an alias).
 */
function rewriteBlock(head: string, keys: readonly string[], values: Values, proposedHead: string): string {
  const { bom, opening, closing, doc } = blockParts(head);
  const proposed = blockParts(proposedHead.replace(/^\uFEFF/, '')).doc;
  for (const key of keys) {
    if (!Object.hasOwn(values, key)) {
      doc.delete(key);
      continue;
    }
    const node = proposed.get(key, true);
    const movable = isNode(node) && !hasAlias(node);
    doc.set(key, movable ? node : values[key]);
  }
  const yaml =
    doc.contents === null || (doc.toJSON() as object | null) === null
      ? ''
      : doc.toString({ flowCollectionPadding: false });
  return `${bom}${opening}${yaml === '{}\n' ? '' : yaml}${closing}`;
}

function keyText(key: string, value: unknown): string {
  if (value === undefined) return '';
  return stringify({ [key]: value }).replace(/\n$/, '');
}

/** The 1-based line of `key` in the block (a top-level key starts its line), else 1. */
function keyLine(head: string, key: string): number {
  const lines = splitLinesKeepingEnds(head.replace(/^\uFEFF/, ''));
  const found = lines.findIndex(
    (line, i) =>
      i > 0 && (line.startsWith(`${key}:`) || line.startsWith(`"${key}":`) || line.startsWith(`'${key}':`)),
  );
  return found === -1 ? 1 : found + 1;
}

function hasAlias(node: Node): boolean {
  let found = false;
  visit(node, {
    Alias: () => {
      found = true;
      return visit.BREAK;
    },
  });
  return found || isAlias(node);
}
