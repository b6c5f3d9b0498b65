import { parseInstant } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('parseInstant', () => {
  it.each<[string, number]>([
    ['2024-01-02', Date.UTC(2024, 0, 2)],
    ['2024-01-02T03:04', Date.UTC(2024, 0, 2, 3, 4)],
    ['2024-01-02T03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02t03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02 03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02T03:04:05.6', Date.UTC(2024, 0, 2, 3, 4, 5, 600)],
    ['2024-01-02T03:04:05,678', Date.UTC(2024, 0, 2, 3, 4, 5, 678)],
    ['2024-01-02T03:04:05.678901Z', Date.UTC(2024, 0, 2, 3, 4, 5, 678) + 0.901],
    ['2024-01-02T03:04:05.123456789z', Date.UTC(2024, 0, 2, 3, 4, 5, 123) + 0.456789],
    ['2024-01-02T03:04:05Z', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02T03:04:05+02:00', Date.UTC(2024, 0, 2, 1, 4, 5)],
    ['2024-01-02T03:04:05-0130', Date.UTC(2024, 0, 2, 4, 34, 5)],
    ['2024-01-02T03:04+05', Date.UTC(2024, 0, 1, 22, 4)],
    ['2024-01-02T03:04:05-00:00', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['2023-12-31T23:59:59Z', Date.UTC(2023, 11, 31, 23, 59, 59)],
    ['0000-01-01', -62_167_219_200_000],
    ['0050-06-01', -60_576_249_600_000],
    ['9999-12-31T23:59:59.999Z', 253_402_300_799_999],
  ])('%s', (text, expected) => {
    expect(parseInstant(text)).toBeCloseTo(expected, 6);
  });

  it.each([
    '',
    '2024',
    '2024-01',
    '2024-1-02',
    '24-01-02',
    '+002024-01-02',
    '2024-00-10',
    '2024-13-10',
    '2024-01-00',
    '2024-01-32',
    '2024-04-31',
    '2023-02-29',
    '1900-02-29',
    '2024-01-02T24:00',
    '2024-01-02T23:60',
    '2024-01-02T23:59:60',
    '2024-01-02T3:04',
    '2024-01-02T03',
    '2024-01-02T03:04:05.',
    '2024-01-02T03:04:05.1234567890',
    '2024-01-02T03:04:05+24:00',
    '2024-01-02T03:04:05+01:60',
    '2024-01-02T03:04:05+1',
    '2024-01-02Z',
    '2024-01-02T03:04:05 Z',
    ' 2024-01-02',
    '2024-01-02 ',
    '20240102',
    '2024-W01-1',
    '2024-002',
    'yesterday',
    '２０２４-01-02',
  ])('refuses %j', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });

  it('agrees with Date.parse on every ISO instant JavaScript writes, in any zone', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (date, offsetMinutes) => {
          const iso = date.toISOString();
          expect(parseInstant(iso)).toBe(date.getTime());
          // The same instant written in another zone.
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, -1);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          if (!local.startsWith('-') && !local.startsWith('+'))
            expect(parseInstant(local + zone)).toBe(date.getTime());
        },
      ),
    );
  });
});
