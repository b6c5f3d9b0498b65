/**
 * Removes optional white space (RFC 9110 §5.6.3: SP and HTAB only) from both ends of a field value.
 * A loop rather than a regular expression, so that a hostile run of spaces costs linear time.
 */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  // charCodeAt outside the string is NaN, which is not OWS; an all-OWS value ends with end < start,
  // and slice() of such a pair is empty.
  while (isOws(value.charCodeAt(start))) start++;
  while (isOws(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

export function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
