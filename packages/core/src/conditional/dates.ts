import { trimOws } from './syntax.js';

const DAY_NAMES = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const LONG_DAY_NAMES = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';

// RFC 9110 §5.6.7. The names are case-sensitive (%s), the layout exact. Only ASCII digits match `\d`.
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^(?:${DAY_NAMES}), (\\d\\d) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
/** Obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^(?:${LONG_DAY_NAMES}), (\\d\\d)-(${MONTH})-(\\d\\d) ${TIME} GMT$`);
/** Obsolete asctime form: `Sun Nov  6 08:49:37 1994` (the day is two digits or a space and one). */
const ASCTIME_DATE = new RegExp(`^(?:${DAY_NAMES}) (${MONTH}) (\\d\\d| \\d) ${TIME} (\\d{4})$`);

/** Where each form puts day, month, year, hour, minute and second among its capture groups. */
const FORMS: readonly {
  pattern: RegExp;
  groups: readonly [number, number, number, number, number, number];
}[] = [
  { pattern: IMF_FIXDATE, groups: [1, 2, 3, 4, 5, 6] },
  { pattern: RFC850_DATE, groups: [1, 2, 3, 4, 5, 6] },
  { pattern: ASCTIME_DATE, groups: [2, 1, 6, 3, 4, 5] },
];

/**
 * RFC 9110 §5.6.7: a two-digit year that appears to be more than 50 years in the future is the most
 * recent past year with the same last two digits. So: the latest year with those digits that is at most
 * 50 years after the calendar year of `nowMs`.
 */
function expandTwoDigitYear(twoDigits: number, nowMs: number): number {
  const latest = new Date(nowMs).getUTCFullYear() + 50;
  return latest - ((latest - twoDigits) % 100);
}

/**
 * The instant of the fields, or undefined when they name no real time (31 Feb, 24:00:00). The second
 * may be 60 (a leap second, RFC 9110 §5.6.7), which counts as the first second of the next minute.
 * The weekday is not checked against the date: the grammar asks for a day name, not a true one.
 */
function toEpochMs(year: number, month: string, fields: readonly number[]): number | undefined {
  const [day = 0, hour = 0, minute = 0, second = 0] = fields;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const monthIndex = MONTHS.indexOf(month);
  // setUTCFullYear, unlike Date.UTC, takes the years 0-99 literally.
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  // A day the month does not have rolls over into the next month, so the day of month changes.
  if (date.getUTCDate() !== day) return undefined;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms; returns epoch milliseconds (always a
 * whole second), or undefined when the value is not a valid HTTP-date (callers then ignore the field,
 * as §13.1.3-4 require). `nowMs` is consulted only for the two-digit years of the RFC 850 form.
 */
export function parseHttpDate(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = trimOws(value);
  for (const { pattern, groups } of FORMS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const [day, month, year, hour, minute, second] = groups.map((group) => match[group]!);
    const fullYear = year!.length === 2 ? expandTwoDigitYear(Number(year), nowMs) : Number(year);
    // Number() reads the asctime day " 6" as 6.
    return toEpochMs(fullYear, month!, [day, hour, minute, second].map(Number));
  }
  return undefined;
}

/**
 * Formats an instant as an IMF-fixdate, dropping the milliseconds (`Sun, 06 Nov 1994 08:49:37 GMT`).
 * Throws a RangeError for an instant outside the years 0000-9999 that the format can carry.
 */
export function formatHttpDate(epochMs: number): string {
  const date = new Date(epochMs);
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) throw new RangeError(`No HTTP-date for the instant ${epochMs}`);
  // ECMAScript defines toUTCString as exactly this layout (day name, 2-digit day, 4-digit year).
  return date.toUTCString();
}

/** An instant truncated to the whole second: the precision of HTTP dates (RFC 9110 §8.8.2). */
export function truncateToSecond(epochMs: number): number {
  return Math.floor(epochMs / 1000) * 1000;
}
