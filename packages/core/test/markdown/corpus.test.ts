import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyEdits, outline, parseDocument, unifiedDiff } from '@mdstore/core';
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { parseWithMicromark } from '../../src/markdown/parse-mdx.js';

/**
 * Real Markdown: the README.md files of the installed packages (up to 64 KiB each, in path order, 60
 * spread evenly over all of them, so that one family of packages, e.g. a scope's dozen near-identical
 * READMEs, cannot fill the sample). On each, the two tree walks agree, every addressable section survives a no-op
 * replace_section byte for byte, and a diff of a one-line change applies.
 */
const modules = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../node_modules');

function readmes(): Array<{ name: string; content: string }> {
  const found: string[] = [];
  const visit = (folder: string, depth: number) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && depth < 2) visit(full, depth + 1);
      else if (entry.isFile() && entry.name.toLowerCase() === 'readme.md' && statSync(full).size <= 65_536) {
        found.push(full);
      }
    }
  };
  visit(modules, 0);
  const step = Math.max(1, Math.floor(found.length / 60));
  return found
    .filter((_, index) => index % step === 0)
    .slice(0, 60)
    .map((file) => ({
      name: path.relative(modules, file),
      // parseWithMicromark is given text without a BOM (parse.ts skips it first); compare the parsers on that.
      content: readFileSync(file, 'utf8').replace(/^\uFEFF/, ''),
    }));
}

const corpus = readmes();

describe('README corpus', () => {
  it('is real and large enough to mean something', () => {
    expect(corpus.length).toBe(60);
    expect(
      corpus.filter((readme) => parseDocument(readme.content, { mdx: false }).headings.length > 3).length,
    ).toBeGreaterThan(30);
  });

  it.each(corpus)('$name: markdown-it and micromark find the same headings and links', ({ content }) => {
    const fromMarkdownIt = parseDocument(content, { mdx: false });
    const fromMicromark = parseWithMicromark(content, { mdx: false });
    const headings = fromMarkdownIt.headings.map(({ level, text, start, bodyStart, setext }) => ({
      level,
      text,
      start,
      bodyStart,
      setext,
    }));
    expect(fromMicromark.headings).toEqual(headings);
    expect(fromMicromark.links.map(({ kind, target, text }) => ({ kind, target, text }))).toEqual(
      fromMarkdownIt.links.map(({ kind, target, text }) => ({ kind, target, text })),
    );
  });

  it.each(corpus)('$name: rewriting each section with its own body changes no byte', ({ content }) => {
    const headings = outline(content, { mdx: false }).headings;
    const paths = headings.map((heading) => JSON.stringify(heading.path));
    for (const heading of headings) {
      // Every heading whose full path is unique is reached by that path (a one-element path names
      // the top-level heading even when its text also ends a deeper heading's path).
      if (paths.filter((other) => other === JSON.stringify(heading.path)).length > 1) continue;
      const { body, bodyStart } = sectionBody(content, heading.path);
      expect(
        applyEdits(content, [{ op: 'replace_section', section: heading.path, text: body }], { mdx: false }),
      ).toBe(content);
      // …and it is that heading's section that an edit reaches, not another with the same body.
      const marked = applyEdits(
        content,
        [{ op: 'replace_section', section: heading.path, text: '\u2063marker\n' }],
        { mdx: false },
      );
      // (a heading on the text's last line without a line ending gets one before the body)
      const at = marked.indexOf('\u2063marker\n');
      expect(at === bodyStart || (bodyStart === content.length && at === bodyStart + 1)).toBe(true);
    }
  });

  it.each(corpus)('$name: the diff of a one-line change applies', ({ content }) => {
    const lines = content.split('\n');
    const middle = Math.floor(lines.length / 2);
    const changed = [...lines.slice(0, middle), 'changed line', ...lines.slice(middle + 1)].join('\n');
    const diff = unifiedDiff(content, changed, { oldName: 'a', newName: 'b' });
    expect(applyPatch(content, diff!)).toBe(changed);
  });
});

function sectionBody(content: string, headingPath: string[]): { body: string; bodyStart: number } {
  const { headings } = parseDocument(content, { mdx: false });
  const tree = outline(content, { mdx: false }).headings;
  const index = tree.findIndex((heading) => JSON.stringify(heading.path) === JSON.stringify(headingPath));
  const heading = headings[index]!;
  const next = headings.slice(index + 1).find((other) => other.level <= heading.level);
  return {
    body: content.slice(heading.bodyStart, next ? next.start : content.length),
    bodyStart: heading.bodyStart,
  };
}
