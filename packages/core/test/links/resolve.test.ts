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

  it('a wiki link names the one attachment of its last segment, counted with the files of that stem', () => {
    expect(resolve(wiki('q3.pdf'))).toEqual([null, 'notes/q3.pdf', null]);
    expect(resolve(wiki('elsewhere/q3.pdf'))).toEqual([null, 'notes/q3.pdf', null]);
    // An exact name first (`docs/cat.png.md`); else `cat.png` names two attachments and a file: several.
    expect(resolve(wiki('docs/cat.png'))).toEqual(['docs/cat.png.md', null, null]);
    expect(resolve(wiki('elsewhere/cat.png'))).toEqual([null, null, 'ambiguous']);
    // A name with `.md` names files only.
    expect(resolve(wiki('q3.pdf.md'))).toEqual([null, null, 'missing']);
    // A Markdown link names its path only.
    expect(resolve(markdown('../q3.pdf'))).toEqual([null, null, 'missing']);
  });

  it('targetKeys asks for attachments by the last segment of wiki links that may name one', () => {
    const links = [wiki('pics/cat.png'), wiki('Setup'), wiki('b.md'), markdown('q3.pdf')];
    expect(targetKeys(links, 'notes/a.md').attachmentNames).toEqual(['cat.png', 'Setup']);
  });

  it('targetKeys asks for attachments only by paths a file cannot have (without .md/.mdx)', () => {
    const links = [wiki('pics/cat.png'), wiki('Setup'), markdown('q3.pdf'), markdown('b.md')];
    expect(targetKeys(links, 'notes/a.md').attachments).toEqual(['pics/cat.png', 'Setup', 'notes/q3.pdf']);
  });
});
