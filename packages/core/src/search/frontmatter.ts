import { type Alias, isAlias, isMap, isScalar, isSeq, type Node, parseDocument, visit } from 'yaml';
import { utf8ByteLength } from '../validation/text.js';
import type { JsonValue } from './filter/ast.js';
import { SEARCH_LIMITS } from './limits.js';

export type FrontmatterObject = { readonly [key: string]: JsonValue };

/**
 * The YAML front matter of a content (extensions §3): after an optional BOM the content's first line
 * is `---`, and a later line `---` or `...` closes the block (spaces or tabs may follow either marker;
 * lines end with LF, CRLF or CR). The block is read as YAML 1.2 with the core schema (dates stay
 * strings) and gives its JSON object, or null when there is no block, the YAML is invalid (duplicate
 * keys included), the document is not a mapping, the block is over 64 KiB of UTF-8, it has more than
 * 100 aliases (counted as they expand: an alias inside an anchored node counts each time that node is
 * used), more than 32 levels (the top mapping is level 1), more than 65 536 values once expanded, or
 * a value with no JSON form: `.inf`, `.nan`, a non-string key, a tag outside the core schema
 * (`!!binary`, `!!set`, `!!timestamp`, local tags…). Read, never enforced: a null changes nothing else.
 */
export function parseFrontmatter(content: string): FrontmatterObject | null {
  const block = frontmatterBlock(content);
  if (block === undefined || utf8ByteLength(block) > SEARCH_LIMITS.frontmatterMaxBytes) return null;
  let doc: ReturnType<typeof parseDocument>;
  try {
    // YAML breaks lines at CR too, the yaml package only at LF (and CRLF): the same text for both.
    doc = parseDocument(block.replace(/\r\n?/g, '\n'), {
      version: '1.2',
      schema: 'core',
      uniqueKeys: true,
      prettyErrors: false,
    });
  } catch {
    return null;
  }
  if (
    doc.errors.length > 0 ||
    !isMap(doc.contents) ||
    countAliases(doc) > SEARCH_LIMITS.frontmatterMaxAliases
  ) {
    return null;
  }
  try {
    return new JsonBuilder(doc).value(doc.contents, 1) as FrontmatterObject;
  } catch (error) {
    if (error instanceof NoJsonForm) return null;
    throw error;
  }
}

const OPENING = /^\uFEFF?---[ \t]*(?:\r\n|\n|\r)/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/** The text between the markers, or undefined when there is no block. Looks no further than needed. */
function frontmatterBlock(content: string): string | undefined {
  const opening = OPENING.exec(content);
  if (!opening) return undefined;
  const start = opening[0].length;
  // Each code unit is at least one byte of UTF-8: a closing line further away makes the block too big.
  const horizon = start + SEARCH_LIMITS.frontmatterMaxBytes;
  const lines = /\r\n|\n|\r/g;
  lines.lastIndex = start;
  for (let lineStart = start; lineStart <= horizon; ) {
    const found = lines.exec(content);
    const lineEnd = found ? found.index : content.length;
    const marker = content.startsWith('---', lineStart) || content.startsWith('...', lineStart);
    if (marker && CLOSING.test(content.slice(lineStart, lineEnd))) return content.slice(start, lineStart);
    if (!found) return undefined;
    lineStart = lines.lastIndex;
  }
  return undefined;
}

function countAliases(doc: ReturnType<typeof parseDocument>): number {
  let count = 0;
  visit(doc, {
    Alias() {
      count += 1;
    },
  });
  return count;
}

class NoJsonForm extends Error {}

const CORE_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`),
);

/** Turns the document into JSON, expanding aliases under the alias, depth and size bounds. */
class JsonBuilder {
  #aliases = 0;
  #nodes = 0;
  readonly #resolved = new Map<Alias, Node | undefined>();

  constructor(private readonly doc: ReturnType<typeof parseDocument>) {}

  value(node: unknown, level: number): JsonValue {
    if (++this.#nodes > SEARCH_LIMITS.frontmatterMaxNodes) throw new NoJsonForm();
    if (isAlias(node)) return this.value(this.#resolve(node), level);
    if ((node as Node | null)?.tag !== undefined && !CORE_TAGS.has((node as Node).tag!))
      throw new NoJsonForm();
    if (isScalar(node)) return scalar(node.value);
    if (level > SEARCH_LIMITS.frontmatterMaxDepth) throw new NoJsonForm();
    if (isSeq(node)) return node.items.map((item) => this.value(item, level + 1));
    if (isMap(node)) {
      const object: Record<string, JsonValue> = {};
      for (const pair of node.items) {
        const key = this.value(pair.key, level + 1);
        if (typeof key !== 'string') throw new NoJsonForm();
        // A plain assignment of `__proto__` would set the prototype instead of adding a member.
        Object.defineProperty(object, key, {
          value: this.value(pair.value, level + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    throw new NoJsonForm();
  }

  #resolve(alias: Alias): Node | undefined {
    if (++this.#aliases > SEARCH_LIMITS.frontmatterMaxAliases) throw new NoJsonForm();
    if (!this.#resolved.has(alias)) this.#resolved.set(alias, alias.resolve(this.doc) as Node | undefined);
    return this.#resolved.get(alias);
  }
}

function scalar(value: unknown): JsonValue {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value === 0 ? 0 : value;
  throw new NoJsonForm();
}
