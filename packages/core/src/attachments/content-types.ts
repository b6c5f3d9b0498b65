import { ATTACHMENT_LIMITS } from '../defaults/attachments.js';
import { ContentTypeMismatchError, MalformedInputError } from '../errors.js';

/**
 * Attachment content types (extensions §12): the type is kept as sent, and for the types a browser
 * would render or run (images it decodes, PDF, SVG, HTML and XML) the bytes' head must be what the type
 * says, so that a file stored as an image is an image (a PNG sent as `image/jpeg` is 415, and so is an
 * HTML page sent as `image/png`). Other types are kept unchecked: they are served with `nosniff` and as
 * `attachment`, so a browser does not render them.
 */

/** `type/subtype` in lower case, parameters dropped; null when the value is no media type. */
export function essenceOf(contentType: string): string | null {
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence) ? essence : null;
}

/** A `Content-Type` as sent: a media type of at most 255 characters, else 400 at `loc`. */
export function checkContentType(contentType: string | undefined, loc: readonly (string | number)[]): string {
  const value = contentType?.trim() ?? '';
  if (value === '' || value.length > ATTACHMENT_LIMITS.contentTypeMaxLength || essenceOf(value) === null) {
    throw new MalformedInputError([
      { loc, msg: 'Value error, must be a media type (type/subtype)', type: 'value_error' },
    ]);
  }
  return value;
}

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) =>
  head.byteLength >= at + bytes.length && bytes.every((byte, i) => head[at + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const u32le = (head: Uint8Array, at: number) =>
  head.byteLength >= at + 4
    ? (head[at]! | (head[at + 1]! << 8) | (head[at + 2]! << 16) | (head[at + 3]! << 24)) >>> 0
    : -1;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** BITMAPINFOHEADER sizes of the BMP versions browsers read. */
const BMP_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

const isPng = (h: Uint8Array) => startsWith(h, PNG) && startsWith(h, ascii('IHDR'), 12);
// SOI then a marker: APPn, DQT, SOFn, DHT, COM (what encoders put first).
const isJpeg = (h: Uint8Array) =>
  startsWith(h, [0xff, 0xd8, 0xff]) &&
  h.byteLength > 3 &&
  ((h[3]! >= 0xe0 && h[3]! <= 0xef) || [0xdb, 0xc0, 0xc2, 0xc4, 0xfe].includes(h[3]!));
const isGif = (h: Uint8Array) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a'));
const isWebp = (h: Uint8Array) =>
  startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8) && startsWith(h, ascii('VP8'), 12);
const isBmp = (h: Uint8Array) =>
  startsWith(h, ascii('BM')) && u32le(h, 6) === 0 && BMP_HEADER_SIZES.has(u32le(h, 14));
// ICONDIR: reserved 0, type 1, at least one image whose entry's reserved byte is 0.
const isIco = (h: Uint8Array) =>
  startsWith(h, [0, 0, 1, 0]) && h.byteLength > 9 && (h[4]! | (h[5]! << 8)) > 0 && h[9] === 0;
const isPdf = (h: Uint8Array) => startsWith(h, ascii('%PDF-'));

/** The head as text, when it is text (no NUL, decodes as UTF-8 but for a character cut at the end). */
function textOf(head: Uint8Array): string | null {
  if (head.includes(0)) return null;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/^\uFEFF/, '');
  // Replacement characters only where the window cut a character in two (the last 3 bytes).
  const bad = text.indexOf('\uFFFD');
  return bad >= 0 && bad < text.length - 3 ? null : text;
}
const BINARY = [isPng, isJpeg, isGif, isWebp, isBmp, isIco, isPdf];
/** Markup: text whose first non-blank character opens a tag, and that is no other checked type. */
const isMarkup = (h: Uint8Array) => {
  const text = textOf(h);
  return text !== null && /^\s*</.test(text) && !BINARY.some((is) => is(h));
};
const isSvg = (h: Uint8Array) => isMarkup(h) && /<svg[\s>/]/i.test(textOf(h)!);

/** The checked types and the test their bytes must pass. */
const CHECKS: Readonly<Record<string, (head: Uint8Array) => boolean>> = {
  'image/png': isPng,
  'image/apng': isPng,
  'image/jpeg': isJpeg,
  'image/pjpeg': isJpeg,
  'image/gif': isGif,
  'image/webp': isWebp,
  'image/bmp': isBmp,
  'image/x-ms-bmp': isBmp,
  'image/x-icon': isIco,
  'image/vnd.microsoft.icon': isIco,
  'application/pdf': isPdf,
  'image/svg+xml': isSvg,
  'text/html': isMarkup,
  'application/xhtml+xml': isMarkup,
  'text/xml': isMarkup,
  'application/xml': isMarkup,
};

/** Whether the type is one whose bytes are checked. */
export const isCheckedType = (contentType: string): boolean => essenceOf(contentType)! in CHECKS;

/** Whether `head` (the first `ATTACHMENT_LIMITS.sniffBytes` bytes, or all of fewer) may be `contentType`. */
export function bytesMatchType(contentType: string, head: Uint8Array): boolean {
  const check = CHECKS[essenceOf(contentType) ?? ''];
  return check === undefined || check(head);
}

/** Types a browser could run script from: served with a sandboxing `Content-Security-Policy`. */
export function mayRunScript(contentType: string): boolean {
  const essence = essenceOf(contentType) ?? '';
  return (
    essence === 'image/svg+xml' ||
    essence.startsWith('text/') ||
    essence.endsWith('+xml') ||
    ['application/xhtml+xml', 'application/xml', 'application/javascript'].includes(essence)
  );
}

/** Images, audio, video and PDF are shown in the browser (`inline`); anything else is downloaded. */
export function isInlineType(contentType: string): boolean {
  const essence = essenceOf(contentType) ?? '';
  return /^(image|audio|video)\//.test(essence) || essence === 'application/pdf';
}

/** Images an MCP client can show (image content); other types come back as a resource link. */
export const isMcpImage = (contentType: string): boolean =>
  ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(essenceOf(contentType) ?? '');

/**
 * The content passed through, its head checked against `contentType` as soon as it is in (the first
 * `sniffBytes`, or the whole content when shorter): a mismatch throws `CONTENT_TYPE_MISMATCH` before
 * anything past the head is read, so the blob write it feeds fails and stores nothing. Memory is bounded
 * by the head.
 */
export async function* typeCheckedContent(
  content: AsyncIterable<Uint8Array>,
  contentType: string,
): AsyncIterable<Uint8Array> {
  if (!isCheckedType(contentType)) {
    yield* content;
    return;
  }
  const want = ATTACHMENT_LIMITS.sniffBytes;
  const held: Uint8Array[] = [];
  let size = 0;
  let checked = false;
  const check = () => {
    const head = new Uint8Array(Math.min(size, want));
    let offset = 0;
    for (const chunk of held) {
      if (offset >= head.byteLength) break;
      const part = chunk.subarray(0, head.byteLength - offset);
      head.set(part, offset);
      offset += part.byteLength;
    }
    if (!bytesMatchType(contentType, head)) throw new ContentTypeMismatchError(essenceOf(contentType)!);
    checked = true;
  };
  for await (const chunk of content) {
    if (checked) {
      yield chunk;
      continue;
    }
    held.push(chunk);
    size += chunk.byteLength;
    if (size >= want) {
      check();
      yield* held;
      held.length = 0;
    }
  }
  if (!checked) {
    check();
    yield* held;
  }
}

/** Types by file extension, for an attachment that comes without one (an archive entry, extensions §10). */
const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  pdf: 'application/pdf',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  canvas: 'application/json',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  zip: 'application/zip',
};

/**
 * The type of an attachment that comes without one: by its extension, else `application/octet-stream`.
 * The bytes are then judged by `bytesMatchType` like any sent type's.
 */
export function contentTypeOfName(path: string): string {
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : '';
  return TYPES_BY_EXTENSION[extension] ?? 'application/octet-stream';
}
