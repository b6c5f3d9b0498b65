export const KiB = 1024;
export const MiB = 1024 * KiB;

/** Valid UTF-8 Markdown of exactly `size` bytes (ASCII, so any cut is still valid UTF-8). */
export function markdownBytes(size: number): Buffer {
  const paragraph = Buffer.from(
    '## Section\n\nThe quick brown fox jumps over the lazy dog. Markdown *emphasis*, `code` and [links](x).\n\n',
  );
  const bytes = Buffer.alloc(size);
  for (let offset = 0; offset < size; offset += paragraph.length) paragraph.copy(bytes, offset);
  return bytes;
}

/**
 * Prose of `size` bytes with `links` relative Markdown links spread evenly through it (issue 36's
 * "1 MiB with 7 000 links"), each to a note of its own (`notes/n<i>.md`): paragraphs of ordinary
 * sentences, a `##` heading every twenty. (`plainProse` is the same page without a link.)
 */
export function proseWithLinks(size: number, links: number): Buffer {
  const sentences = [
    'The river ran low that summer, and the mill stood quiet for weeks.',
    'Nobody in the village could remember a drier year than this one.',
    'In the evenings the children walked along the dry bed looking for stones.',
    'Their grandmother told them stories of floods that reached the church steps.',
    'By autumn the rain came back, slowly at first and then all at once.',
  ];
  const parts: string[] = [];
  let length = 0;
  let paragraph = 0;
  let linked = 0;
  // A paragraph about every `size / links` bytes holds a link; without links none does.
  const every = (size - 256) / links;
  while (length < size) {
    let text =
      paragraph % 20 === 0
        ? `## Chapter ${paragraph / 20 + 1}

`
        : '';
    const sentence = sentences[paragraph % sentences.length]!;
    text += sentence;
    while (linked < links && (linked + 1) * every <= length + text.length + 2) {
      text += ` See [note ${linked}](notes/n${linked}.md).`;
      linked += 1;
    }
    text += '\n\n';
    parts.push(text);
    length += Buffer.byteLength(text);
    paragraph += 1;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

export const BOUNDARY = 'mdstorebenchboundary7MA4YWxkTrZu0gW';
/** Width of the per-request counter written into filenames, e.g. `u-000000042.md`. */
const COUNTER_WIDTH = 9;

/**
 * A multipart upload body built once per size, with a fixed-width counter in the filename that
 * `stamp` overwrites in place. autocannon copies the body when it builds each request, so one shared
 * buffer can be re-stamped for every request.
 */
export interface MultipartTemplate {
  readonly body: Buffer;
  readonly contentType: string;
  /** Writes `counter` into the filename (`<prefix>-<counter>.md`) and returns that filename. */
  stamp(counter: number): string;
}

export function multipartTemplate(content: Buffer, prefix: string): MultipartTemplate {
  const placeholder = '0'.repeat(COUNTER_WIDTH);
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"bench":true,"tags":["a","b"]}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${prefix}-${placeholder}.md"\r\n` +
      'Content-Type: text/markdown\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const body = Buffer.concat([head, content, tail]);
  const at = head.indexOf(`${prefix}-${placeholder}`) + prefix.length + 1;
  return {
    body,
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    stamp(counter) {
      const digits = String(counter).padStart(COUNTER_WIDTH, '0');
      if (digits.length > COUNTER_WIDTH) throw new RangeError('upload counter overflow');
      body.write(digits, at, 'latin1');
      return `${prefix}-${digits}.md`;
    },
  };
}

/** A one-off multipart body (setup code: seeding files). */
export function multipartBody(filename: string, content: Buffer): { body: Buffer; contentType: string } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      'Content-Type: text/markdown\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return {
    body: Buffer.concat([head, content, tail]),
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  };
}

/** Fills `size` bytes with `blocks` in turn (whole blocks, then spaces): ASCII, so bytes are characters. */
function filled(head: string, blocks: readonly string[], size: number): Buffer {
  let text = head;
  for (let i = 0; text.length + blocks[i % blocks.length]!.length <= size; i++)
    text += blocks[i % blocks.length]!;
  return Buffer.from(text.padEnd(size - 1, ' ') + '\n');
}

/**
 * A realistic link-dense page (a guide's index) of `size` bytes: front matter, headings, inline and
 * reference links to `.md` files (relative, `../`, `#anchor`), wiki links with aliases and headings,
 * an image, a URL, a link list, inline code and a fenced block with a link-like line in it.
 */
export function linkDenseMarkdown(size: number): Buffer {
  const head =
    '---\ntitle: Guides\ntags: [docs, index]\n---\n# Guides\n\n' +
    'Start with [installing it](setup/install.md), then read [the configuration](config.md#options) ' +
    'and the [[glossary]]. Questions go to [the forum](https://example.com/forum).\n\n';
  const blocks = [
    '## Setting up\n\n- [Install](setup/install.md)\n- [Upgrade from 1.x](setup/upgrade.md#breaking-changes)\n' +
      '- [[setup/docker|Running in Docker]]\n- [Troubleshooting][trouble]\n\n',
    'The [command line](../reference/cli.md) and the [HTTP API](../reference/api.md#authentication) ' +
      'share one set of [[concepts#Keys|keys]]; see ![the diagram](img/keys.png) and `[not](a-link.md)`.\n\n',
    '### Writing\n\n1. [Files and folders](guides/files.md)\n2. [Metadata](guides/metadata.md#front-matter)\n' +
      '3. [Search](guides/search.md) and [[guides/links#Broken links]]\n\n',
    '```md\n[inside code](not-indexed.md)\n```\n\nMore in [[faq]], [the changelog](CHANGELOG.md) and ' +
      '[release notes](releases/2026.md#november).\n\n[trouble]: setup/troubleshooting.md\n\n',
  ];
  return filled(head, blocks, size);
}

/** Plain prose of `size` bytes: headings, paragraphs, emphasis, a list and inline code, and no link form. */
export function plainProse(size: number): Buffer {
  const blocks = [
    '## A section\n\nThe quick brown fox jumps over the lazy dog, and the *dog* does not mind. ' +
      'Notes are kept as plain text with a little **emphasis** and `inline code` here and there.\n\n',
    'Writing every day helps: a paragraph of plain words, a thought, another one. Nothing in it points ' +
      'anywhere else; it is the kind of page a journal or a meeting note is made of.\n\n',
    '- first item of a list\n- second item, a little longer than the first\n- third and last\n\n',
  ];
  return filled('# Notes\n\n', blocks, size);
}
