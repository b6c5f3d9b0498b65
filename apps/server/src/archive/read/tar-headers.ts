import { Transform, type TransformCallback } from 'node:stream';
import { IMPORT_ANSWER_LIMITS, InvalidInputError } from '@mdstore/core';

const BLOCK = 512;
/** The header types whose data the tar parser buffers whole: PAX (per entry, global), GNU long names. */
const LONG_HEADERS = new Set(['x', 'g', 'L', 'K'].map((c) => c.charCodeAt(0)));
const PAX = 'x'.charCodeAt(0);
const DIRECTORY = '5'.charCodeAt(0);

const roundUp = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

/** A tar number field: octal text, or base-256 when its first byte has the high bit (GNU). */
function numberField(field: Uint8Array): number {
  if ((field[0]! & 0x80) !== 0) {
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = Buffer.from(field)
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .trim();
  const value = Number.parseInt(text || '0', 8);
  return Number.isFinite(value) ? value : 0;
}

/** The `size` record of a PAX header's data (`<len> size=<n>\n`), if any. */
function paxSize(data: Buffer): number | undefined {
  const match = /(?:^|\n)\d+ size=(\d+)\n/.exec(data.toString('latin1'));
  return match ? Number(match[1]) : undefined;
}

export const headerTooLarge = (maxBytes: number) =>
  new InvalidInputError([
    {
      loc: ['body'],
      msg: `Archive refused: a tar name (PAX or long-name) header passes ${maxBytes} bytes`,
      type: 'header_too_large',
    },
  ]);

/**
 * Walks the blocks of an uncompressed tar on their way to the tar parser (bytes passed on unchanged)
 * and refuses the archive at a PAX or GNU long-name header larger than `maxBytes`, from its 512-byte
 * header, before the parser buffers its data (it would hold up to 4 MiB of it per entry). Entry data
 * is skipped by the sizes the headers give (a PAX `size` included), the way the parser reads them.
 */
export function tarHeaderGuard(maxBytes: number = IMPORT_ANSWER_LIMITS.longHeaderMaxBytes): Transform {
  const header = Buffer.alloc(BLOCK);
  let filled = 0;
  let skip = 0;
  /** A PAX header's data being gathered (bounded by `maxBytes`), to read its `size`. */
  let pax: Buffer[] | undefined;
  let paxLeft = 0;
  let nextSize: number | undefined;

  const onHeader = () => {
    if (header.every((byte) => byte === 0)) return;
    const type = header[156]!;
    const size = numberField(header.subarray(124, 136));
    if (LONG_HEADERS.has(type)) {
      if (size > maxBytes) throw headerTooLarge(maxBytes);
      if (type === PAX) {
        pax = [];
        paxLeft = size;
      }
      skip = roundUp(size);
      return;
    }
    const entrySize = nextSize ?? size;
    nextSize = undefined;
    skip = type === DIRECTORY ? 0 : roundUp(entrySize);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        let at = 0;
        while (at < chunk.length) {
          if (skip > 0) {
            const n = Math.min(skip, chunk.length - at);
            if (pax) {
              const take = Math.min(paxLeft, n);
              pax.push(chunk.subarray(at, at + take));
              paxLeft -= take;
            }
            skip -= n;
            at += n;
            if (skip === 0 && pax) {
              nextSize = paxSize(Buffer.concat(pax));
              pax = undefined;
            }
            continue;
          }
          const n = Math.min(BLOCK - filled, chunk.length - at);
          chunk.copy(header, filled, at, at + n);
          filled += n;
          at += n;
          if (filled === BLOCK) {
            filled = 0;
            onHeader();
          }
        }
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
}
