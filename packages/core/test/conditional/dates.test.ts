import { formatHttpDate, parseHttpDate, truncateToSecond } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const SUNDAY = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

describe('parseHttpDate (RFC 9110 §5.6.7)', () => {
  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime, one-digit day', 'Sun Nov  6 08:49:37 1994'],
    ['asctime, two-digit day', 'Sun Nov 06 08:49:37 1994'],
    ['with optional white space around it', ' \tSun, 06 Nov 1994 08:49:37 GMT\t '],
  ])('reads the %s form', (_, value) => {
    expect(parseHttpDate(value, NOW)).toBe(SUNDAY);
  });

  it('reads every month and day name', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    const longDays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    months.forEach((month, index) => {
      const instant = Date.UTC(2001, index, 9, 1, 2, 3);
      const day = new Date(instant).getUTCDay();
      expect(parseHttpDate(`${days[day]}, 09 ${month} 2001 01:02:03 GMT`)).toBe(instant);
      expect(parseHttpDate(`${longDays[day]}, 09-${month}-01 01:02:03 GMT`, NOW)).toBe(instant);
      expect(parseHttpDate(`${days[day]} ${month}  9 01:02:03 2001`)).toBe(instant);
    });
  });

  it('does not check the weekday against the date', () => {
    expect(parseHttpDate('Mon, 06 Nov 1994 08:49:37 GMT')).toBe(SUNDAY);
  });

  it('reads the edges of each field', () => {
    expect(parseHttpDate('Sat, 01 Jan 0000 00:00:00 GMT')).toBe(Date.parse('0000-01-01T00:00:00Z'));
    expect(parseHttpDate('Fri, 31 Dec 9999 23:59:59 GMT')).toBe(Date.parse('9999-12-31T23:59:59Z'));
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(parseHttpDate('Wed, 31 Jan 2024 23:59:59 GMT')).toBe(Date.parse('2024-01-31T23:59:59Z'));
    expect(parseHttpDate('Thu, 01 Jan 1970 00:00:00 GMT')).toBe(0);
    expect(parseHttpDate('Sun, 05 Jan 0099 00:00:00 GMT')).toBe(Date.parse('0099-01-05T00:00:00Z'));
  });

  it('reads a leap second as the first second of the next minute', () => {
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it.each([
    ['day 00', 'Sun, 00 Nov 1994 08:49:37 GMT'],
    ['31 April', 'Sun, 31 Apr 1994 08:49:37 GMT'],
    ['29 February of a common year', 'Sun, 29 Feb 2023 08:49:37 GMT'],
    ['day 32', 'Sun, 32 Jan 1994 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:00 GMT'],
    ['second 61', 'Sun, 06 Nov 1994 08:49:61 GMT'],
    ['a lower-case day name', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['an upper-case month', 'Sun, 06 NOV 1994 08:49:37 GMT'],
    ['a zone other than GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['lower-case gmt', 'Sun, 06 Nov 1994 08:49:37 gmt'],
    ['a numeric zone', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['a one-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['a two-digit year', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['a five-digit year', 'Sun, 06 Nov 19940 08:49:37 GMT'],
    ['a one-digit hour', 'Sun, 06 Nov 1994 8:49:37 GMT'],
    ['no seconds', 'Sun, 06 Nov 1994 08:49 GMT'],
    ['a full day name in IMF-fixdate', 'Sunday, 06 Nov 1994 08:49:37 GMT'],
    ['a short day name in RFC 850', 'Sun, 06-Nov-94 08:49:37 GMT'],
    ['a four-digit year in RFC 850', 'Sunday, 06-Nov-1994 08:49:37 GMT'],
    ['an asctime date with GMT', 'Sun Nov  6 08:49:37 1994 GMT'],
    ['an asctime date with a one-digit day and one space', 'Sun Nov 6 08:49:37 1994'],
    ['a missing comma', 'Sun 06 Nov 1994 08:49:37 GMT'],
    ['two spaces', 'Sun,  06 Nov 1994 08:49:37 GMT'],
    ['a list of two dates', 'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT'],
    ['text before', 'x Sun, 06 Nov 1994 08:49:37 GMT'],
    ['text after', 'Sun, 06 Nov 1994 08:49:37 GMTx'],
    ['non-ASCII digits', 'Sun, \u0660\u0666 Nov 1994 08:49:37 GMT'],
    ['an ISO 8601 date', '1994-11-06T08:49:37Z'],
    ['epoch seconds', '784111777'],
    ['the empty string', ''],
  ])('rejects %s', (_, value) => {
    expect(parseHttpDate(value, NOW)).toBeUndefined();
  });

  it('is undefined when absent', () => {
    expect(parseHttpDate(undefined)).toBeUndefined();
  });

  it('reads a two-digit RFC 850 year as at most 50 years ahead, else the century before', () => {
    // In 2026: 76 is 2076 (50 years ahead), 77 would be 51 years ahead, so 1977.
    const at = (yy: string, now: number) =>
      new Date(parseHttpDate(`Friday, 01-Jan-${yy} 00:00:00 GMT`, now)!).getUTCFullYear();
    expect(at('76', NOW)).toBe(2076);
    expect(at('77', NOW)).toBe(1977);
    expect(at('00', NOW)).toBe(2000);
    expect(at('26', NOW)).toBe(2026);
    expect(at('99', NOW)).toBe(1999);
    const in2099 = Date.UTC(2099, 0, 1);
    expect(at('49', in2099)).toBe(2149);
    expect(at('50', in2099)).toBe(2050);
    expect(at('98', in2099)).toBe(2098);
    expect(at('00', in2099)).toBe(2100);
    expect(at('99', in2099)).toBe(2099);
  });

  it('uses the current time when none is given', () => {
    const year = new Date().getUTCFullYear() % 100;
    const yy = String(year).padStart(2, '0');
    const parsed = parseHttpDate(`Friday, 01-Jan-${yy} 00:00:00 GMT`);
    expect(new Date(parsed!).getUTCFullYear()).toBe(new Date().getUTCFullYear());
  });
});

describe('formatHttpDate', () => {
  it('writes an IMF-fixdate and drops the milliseconds', () => {
    expect(formatHttpDate(SUNDAY)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(formatHttpDate(SUNDAY + 999)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(formatHttpDate(-1)).toBe('Wed, 31 Dec 1969 23:59:59 GMT');
    expect(formatHttpDate(Date.parse('0005-03-04T05:06:07Z'))).toBe('Fri, 04 Mar 0005 05:06:07 GMT');
  });

  it('refuses instants the format cannot carry', () => {
    expect(formatHttpDate(Date.parse('0000-01-01T00:00:00Z'))).toBe('Sat, 01 Jan 0000 00:00:00 GMT');
    expect(formatHttpDate(Date.parse('9999-12-31T23:59:59.999Z'))).toBe('Fri, 31 Dec 9999 23:59:59 GMT');
    expect(() => formatHttpDate(Date.parse('0000-01-01T00:00:00Z') - 1)).toThrow(RangeError);
    expect(() => formatHttpDate(-62167219200001)).toThrow('No HTTP-date for the instant -62167219200001');
    expect(() => formatHttpDate(Date.parse('9999-12-31T23:59:59.999Z') + 1)).toThrow(RangeError);
    expect(() => formatHttpDate(Number.NaN)).toThrow(RangeError);
    expect(() => formatHttpDate(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('round-trips any instant of years 0000-9999 to the second', () => {
    const instant = fc.integer({
      min: Date.parse('0000-01-01T00:00:00Z'),
      max: Date.parse('9999-12-31T23:59:59.999Z'),
    });
    fc.assert(
      fc.property(instant, (ms) => {
        expect(parseHttpDate(formatHttpDate(ms))).toBe(truncateToSecond(ms));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('truncateToSecond', () => {
  it('rounds towards the past, before the epoch too', () => {
    expect(truncateToSecond(1999)).toBe(1000);
    expect(truncateToSecond(2000)).toBe(2000);
    expect(truncateToSecond(-1)).toBe(-1000);
    expect(truncateToSecond(0)).toBe(0);
  });
});
