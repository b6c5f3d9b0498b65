/**
 * Entity tags (extensions §2). Strong, quotes included, opaque to clients.
 *
 * A file's tag is its id and revision: the revision grows with every write, and a file deleted and
 * uploaded again gets a new id, so a tag is never handed out twice for different content. A revision
 * keeps the tag the file had while that revision was current.
 */
export const fileEtag = (file: { readonly id: string; readonly revision: number }): string =>
  `"${file.id.replaceAll('-', '')}-${file.revision}"`;

/**
 * A project's tag changes whenever a field of the Project object changes: it is a hash of every field as
 * the object shows them. Not cryptographic (nothing is secret in it), just well mixed: two 32-bit lanes
 * of multiply-xorshift over the UTF-16 code units.
 */
export function contentTag(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `"${(h2 >>> 0).toString(16).padStart(8, '0')}${(h1 >>> 0).toString(16).padStart(8, '0')}"`;
}
