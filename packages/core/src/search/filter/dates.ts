/**
 * ISO 8601 instants in the extended format: `YYYY-MM-DD`, optionally followed by `T` (or `t`, or a
 * space, as RFC 3339 allows) and `hh:mm`, `hh:mm:ss` or `hh:mm:ss.fraction` (1-9 digits, `.` or `,`),
 * optionally followed by a zone: `Z`, `±hh:mm`, `±hhmm` or `±hh`. No zone means UTC; a date alone is
 * its midnight UTC. Years 0000-9999; every field is range-checked (no 24:00, no leap second, no
 * 31 April). Week dates, ordinal dates and the basic format are not accepted.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** Epoch milliseconds (a fraction for sub-millisecond digits), or undefined when not a valid instant. */
export function parseInstant(text: string): number | undefined {
  const match = ISO_8601.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] ?? '';
  const sign = match[9];
  const zoneHours = Number(match[10] ?? 0);
  const zoneMinutes = Number(match[11] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || zoneHours > 23 || zoneMinutes > 59) return undefined;
  // Date.UTC maps years 0-99 to 1900-1999: set the full year explicitly.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const offset = (sign === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes) * 60_000;
  return date.getTime() + Number(fraction.padEnd(9, '0')) / 1e6 - offset;
}
