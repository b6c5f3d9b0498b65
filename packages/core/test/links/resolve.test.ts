import { describe, expect, it } from 'vitest';
import { resolveLink } from '../../src/links/entry.js';
import { TargetIndex, targetKeys } from '../../src/links/resolve.js';
import type { LinkTargetRecord } from '../../src/model/records.js';

/** The link index's one rule (extensions §9) with attachments among the targets (§12). */

const file = (filename: string, stem: string, headings: string[] = []): LinkTargetRecord => ({
  fileId: filename,
  filename,
  stem,
  slugs: [],
  headings,
});
const wiki = (raw: string) =>
  resolveLink({ kind: 'wiki', line: 1, raw, start: null, end: null }, 0, 'notes/a.md');
const markdown = (raw: string) =>
  resolveLink({ kind: 'markdown', line: 1, raw, start: null, end: null }, 0, 'notes/a.md');

describe('TargetIndex with attachments', () => {
  const index = new TargetIndex(
    [file('docs/cat.png.md', 'cat.png'), file('notes/Setup.md', 'Setup', ['Linux'])],
    [
      { path: 'pics/cat.png', contentType: 'image/png' },
      { path: 'cat.png', contentType: 'image/png' },
      { path: 'notes/q3.pdf', contentType: 'application/pdf' },
    ],
  );
  const resolve = (link: ReturnType<typeof wiki>) => {
    const r = index.resolve(link, 'notes/a.md');
    return [r.target?.filename ?? null, r.attachment?.path ?? null, r.broken];
  };

  it('a wiki link names an attachment by its exact path, before the same name with .md', () => {
    expect(resolve(wiki('pics/cat.png'))).toEqual([null, 'pics/cat.png', null]);
    expect(resolve(wiki('cat.png'))).toEqual([null, 'cat.png', null]);
    expect(resolve(wiki('Setup#Linux'))).toEqual(['notes/Setup.md', null, null]);
  });

  it('a Markdown link or image names one by its path from the linking file’s folder; its anchor is not checked', () => {
    expect(resolve(markdown('q3.pdf#page=2'))).toEqual([null, 'notes/q3.pdf', null]);
    expect(resolve(markdown('../pics/cat.png'))).toEqual([null, 'pics/cat.png', null]);
    expect(resolve(markdown('cat.png'))).toEqual([null, null, 'missing']);
  });

  it('an attachment is not found by its last segment alone; a file still is, by its stem', () => {
    expect(resolve(wiki('q3.pdf'))).toEqual([null, null, 'missing']);
    expect(resolve(wiki('docs/cat.png'))).toEqual(['docs/cat.png.md', null, null]);
  });

  it('targetKeys asks for attachments only by paths a file cannot have (without .md/.mdx)', () => {
    const links = [wiki('pics/cat.png'), wiki('Setup'), markdown('q3.pdf'), markdown('b.md')];
    expect(targetKeys(links, 'notes/a.md').attachments).toEqual(['pics/cat.png', 'Setup', 'notes/q3.pdf']);
  });
});
