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
