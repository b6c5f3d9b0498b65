import { describe, expect, it } from 'vitest';
import { FilenameEncodingWatch } from '../../src/http/multipart-names.js';

const BOUNDARY = 'b0undary';

const form = (...dispositions: Buffer[]) =>
  Buffer.concat([
    ...dispositions.flatMap((disposition) => [
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; `),
      disposition,
      Buffer.from(
        '\r\nContent-Type: text/markdown\r\n\r\n# body with --b0undar and filename="\xff"\r\n',
        'latin1',
      ),
    ]),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ]);

/** The watch's verdict when the body arrives in chunks of `size` bytes. */
function verdict(body: Buffer, size: number): boolean {
  const watch = new FilenameEncodingWatch(BOUNDARY);
  for (let at = 0; at < body.length; at += size) watch.push(body.subarray(at, at + size));
  return watch.invalidFilename;
}

const SIZES = [1, 2, 3, 7, 16, 64, 1 << 20];

describe('FilenameEncodingWatch', () => {
  it('flags a filename whose bytes are not UTF-8, however the body is cut', () => {
    const bad = [
      Buffer.concat([Buffer.from('name="file"; filename="a'), Buffer.from([0xff]), Buffer.from('.md"')]),
      Buffer.from(`name="file"; filename*=UTF-8''a%FF%FEb.md`),
      Buffer.from(`name="file"; filename="ok.md"; filename*=utf-8'en'%C3.md`),
    ];
    for (const disposition of bad) {
      for (const size of SIZES) {
        expect(
          verdict(form(Buffer.from('name="metadata"'), disposition), size),
          `${disposition} / ${size}`,
        ).toBe(true);
      }
    }
  });

  it('passes valid UTF-8 names, and bytes that are not in a part header', () => {
    const good = [
      Buffer.from('name="file"; filename="naïve.md"', 'utf8'),
      Buffer.from(`name="file"; filename*=UTF-8''%C3%A9t%C3%A9.md`),
      Buffer.from(`name="file"; filename*=UTF-8''a%EF%BF%BDb.md`),
      // Another charset is busboy's to decode; a latin1 name is valid text once decoded.
      Buffer.from(`name="file"; filename*=iso-8859-1''caf%E9.md`),
    ];
    for (const disposition of good) {
      for (const size of SIZES)
        expect(verdict(form(disposition), size), `${disposition} / ${size}`).toBe(false);
    }
  });
});
