/**
 * A reference UTF-8 validator written straight from the Unicode Standard, chapter 3, Table 3-7
 * ("Well-Formed UTF-8 Byte Sequences"), to check the core's validator against. Deliberately naive:
 * one row of the table per branch, no decoder involved.
 *
 *   U+0000..U+007F     00..7F
 *   U+0080..U+07FF     C2..DF  80..BF
 *   U+0800..U+0FFF     E0      A0..BF  80..BF
 *   U+1000..U+CFFF     E1..EC  80..BF  80..BF
 *   U+D000..U+D7FF     ED      80..9F  80..BF
 *   U+E000..U+FFFF     EE..EF  80..BF  80..BF
 *   U+10000..U+3FFFF   F0      90..BF  80..BF  80..BF
 *   U+40000..U+FFFFF   F1..F3  80..BF  80..BF  80..BF
 *   U+100000..U+10FFFF F4      80..8F  80..BF  80..BF
 */
type Range = readonly [number, number];

const CONT: Range = [0x80, 0xbf];

/** Each row: the lead byte range, then the range of each following byte. */
const ROWS: ReadonlyArray<readonly [Range, ...Range[]]> = [
  [[0x00, 0x7f]],
  [[0xc2, 0xdf], CONT],
  [[0xe0, 0xe0], [0xa0, 0xbf], CONT],
  [[0xe1, 0xec], CONT, CONT],
  [[0xed, 0xed], [0x80, 0x9f], CONT],
  [[0xee, 0xef], CONT, CONT],
  [[0xf0, 0xf0], [0x90, 0xbf], CONT, CONT],
  [[0xf1, 0xf3], CONT, CONT, CONT],
  [[0xf4, 0xf4], [0x80, 0x8f], CONT, CONT],
];

const within = (value: number | undefined, [low, high]: Range) =>
  value !== undefined && value >= low && value <= high;

export function isWellFormedUtf8(bytes: Uint8Array): boolean {
  let index = 0;
  while (index < bytes.length) {
    const row = ROWS.find(([lead]) => within(bytes[index], lead));
    if (!row) return false;
    for (let offset = 1; offset < row.length; offset++) {
      if (!within(bytes[index + offset], row[offset]!)) return false;
    }
    index += row.length;
  }
  return true;
}
