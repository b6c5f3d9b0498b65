/**
 * Maps port keys to S3 keys that every S3-compatible store can hold.
 *
 * S3 itself takes any key, but stores that keep objects as files (s3rver, MinIO) refuse or even resolve
 * keys with empty, `.` or `..` segments (`a//b`, `x/../y`, `trailing/`) and segments longer than a file
 * name may be. So:
 * - a portable key (every `/`-separated segment non-empty, not `.` or `..`, at most 200 bytes, and not
 *   starting with the reserved segment `~`) is stored verbatim, so that ordinary file names keep their
 *   own name in the bucket;
 * - any other key is stored under the reserved `~/` namespace, escaped (`%`, `/` and `.` as `%XX`) and
 *   cut into segments of at most 200 bytes.
 * No verbatim key starts with `~/` and the escaping is reversible, so no two keys share an S3 key.
 */

const MAX_SEGMENT_BYTES = 200;
const ENCODED_PREFIX = '~/';

const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

const isPortable = (key: string): boolean => {
  const segments = key.split('/');
  if (segments[0] === '~') return false;
  return segments.every(
    (segment) =>
      segment !== '' && segment !== '.' && segment !== '..' && utf8Length(segment) <= MAX_SEGMENT_BYTES,
  );
};

/** The escaped key as tokens: a `%XX` escape or one character, never to be cut apart. */
const escapedTokens = (key: string): string[] =>
  Array.from(key, (char) =>
    char === '%' || char === '/' || char === '.' ? `%${char.charCodeAt(0).toString(16).toUpperCase()}` : char,
  );

const cutIntoSegments = (tokens: readonly string[]): string[] => {
  const segments: string[] = [];
  let current = '';
  let currentBytes = 0;
  for (const token of tokens) {
    const tokenBytes = utf8Length(token);
    if (currentBytes + tokenBytes > MAX_SEGMENT_BYTES) {
      segments.push(current);
      current = '';
      currentBytes = 0;
    }
    current += token;
    currentBytes += tokenBytes;
  }
  segments.push(current);
  return segments;
};

export const encodeKey = (key: string): string =>
  isPortable(key) ? key : ENCODED_PREFIX + cutIntoSegments(escapedTokens(key)).join('/');

export const decodeKey = (s3Key: string): string => {
  if (!s3Key.startsWith(ENCODED_PREFIX)) return s3Key;
  const escaped = s3Key.slice(ENCODED_PREFIX.length).replaceAll('/', '');
  return escaped.replace(/%(25|2F|2E)/g, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
};
