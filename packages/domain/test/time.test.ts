import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMexicoCity,
  formatMexicoCityLocal,
  formatMexicoCityOffset,
  parseMexicoCityLocal,
  parseOffsetTimestamp,
  TimeFormatError,
} from '../src/time.ts';

const SIX_HOURS_MS = 6 * 60 * 60 * 1000;
const dates2000to2100 = fc.date({
  min: new Date('2000-01-01T00:00:00.000Z'),
  max: new Date('2100-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});

describe("parseMexicoCityLocal (a token's expires_at: no offset, UTC-6)", () => {
  it('reads the layout as UTC-6, not UTC', () => {
    expect(parseMexicoCityLocal('2026-05-07 12:00:00.000000').toISOString()).toBe('2026-05-07T18:00:00.000Z');
    expect(parseMexicoCityLocal('2026-05-07 12:00:00').toISOString()).toBe('2026-05-07T18:00:00.000Z');
    expect(parseMexicoCityLocal('2026-05-07T12:00:00.000000').toISOString()).toBe('2026-05-07T18:00:00.000Z');
  });

  it('agrees with the tz database for dates after 2022 (no DST)', () => {
    // Computed with GNU date and tzdata: TZ=UTC date -u -d 'TZ="America/Mexico_City" <local>' +%FT%T.000Z
    expect(parseMexicoCityLocal('2026-12-31 23:30:00.000000').toISOString()).toBe('2027-01-01T05:30:00.000Z');
    expect(parseMexicoCityLocal('2030-07-15 00:00:00.000000').toISOString()).toBe('2030-07-15T06:00:00.000Z');
    expect(parseMexicoCityLocal('2099-02-28 20:15:30.000000').toISOString()).toBe('2099-03-01T02:15:30.000Z');
  });

  it('truncates microseconds to milliseconds', () => {
    expect(parseMexicoCityLocal('2026-05-07 12:00:00.123999').toISOString()).toBe('2026-05-07T18:00:00.123Z');
    expect(parseMexicoCityLocal('2026-05-07 12:00:00.5').toISOString()).toBe('2026-05-07T18:00:00.500Z');
  });

  it('sends a timestamp with an offset to parseOffsetTimestamp instead of ignoring the offset', () => {
    expect(() => parseMexicoCityLocal('2026-05-06 12:00:00.000000-06:00')).toThrow(
      /carries an offset: read it with parseOffsetTimestamp/,
    );
    expect(() => parseMexicoCityLocal('2026-05-06T18:00:00Z')).toThrow(TimeFormatError);
  });

  it('rejects impossible dates and other layouts', () => {
    expect(() => parseMexicoCityLocal('2026-02-30 00:00:00')).toThrow(/day 30, which 2026-02 does not have/);
    expect(() => parseMexicoCityLocal('2026-13-01 00:00:00')).toThrow(/month 13: months run 01-12/);
    expect(() => parseMexicoCityLocal('2026-05-07 24:00:00')).toThrow(/impossible time of day/);
    expect(() => parseMexicoCityLocal('2026-05-07 12:60:00')).toThrow(TimeFormatError);
    expect(() => parseMexicoCityLocal('07/05/2026 12:00')).toThrow(/expected "YYYY-MM-DD HH:MM:SS"/);
    expect(() => parseMexicoCityLocal('')).toThrow(TimeFormatError);
    expect(() => parseMexicoCityLocal(1746640800 as unknown as string)).toThrow(TimeFormatError);
    expect(parseMexicoCityLocal('2024-02-29 00:00:00').toISOString()).toBe('2024-02-29T06:00:00.000Z');
    expect(() => parseMexicoCityLocal('2100-02-29 00:00:00')).toThrow(TimeFormatError);
  });
});

describe('parseOffsetTimestamp', () => {
  it('reads the platform layout with -06:00', () => {
    expect(parseOffsetTimestamp('2026-05-06 12:00:00.000000-06:00').toISOString()).toBe('2026-05-06T18:00:00.000Z');
    expect(parseOffsetTimestamp('2026-05-06 12:00:00.654321-06:00').toISOString()).toBe('2026-05-06T18:00:00.654Z');
  });

  it('reads ISO 8601 with Z or another offset', () => {
    expect(parseOffsetTimestamp('2026-05-06T18:00:00Z').toISOString()).toBe('2026-05-06T18:00:00.000Z');
    expect(parseOffsetTimestamp('2026-05-06T18:00:00.250Z').toISOString()).toBe('2026-05-06T18:00:00.250Z');
    expect(parseOffsetTimestamp('2026-05-06T23:30:00+05:30').toISOString()).toBe('2026-05-06T18:00:00.000Z');
    expect(parseOffsetTimestamp('2026-05-06T12:00:00-0600').toISOString()).toBe('2026-05-06T18:00:00.000Z');
    expect(parseOffsetTimestamp('2026-05-06T18:00:00+00:00').toISOString()).toBe('2026-05-06T18:00:00.000Z');
    expect(parseOffsetTimestamp('2026-05-06T18:00Z').toISOString()).toBe('2026-05-06T18:00:00.000Z');
  });

  it('sends an offset-less time to parseMexicoCityLocal instead of guessing UTC', () => {
    expect(() => parseOffsetTimestamp('2026-05-07 12:00:00.000000')).toThrow(
      /has no offset: if it is Mexico City local time \(a token's expires_at\), read it with parseMexicoCityLocal/,
    );
  });

  it('rejects impossible values', () => {
    expect(() => parseOffsetTimestamp('2026-05-06T18:00:00+24:00')).toThrow(/impossible offset/);
    expect(() => parseOffsetTimestamp('2026-04-31T18:00:00Z')).toThrow(/day 31/);
    expect(() => parseOffsetTimestamp('yesterday')).toThrow(TimeFormatError);
  });
});

describe('formatting', () => {
  const instant = new Date('2026-05-07T18:00:00.123Z');

  it('writes the platform layouts in Mexico City time', () => {
    expect(formatMexicoCityLocal(instant)).toBe('2026-05-07 12:00:00.123000');
    expect(formatMexicoCityOffset(instant)).toBe('2026-05-07 12:00:00.123000-06:00');
    expect(formatMexicoCity(instant)).toBe('2026-05-07 12:00 (Mexico City)');
    expect(formatMexicoCityLocal(new Date('2027-01-01T05:30:00Z'))).toBe('2026-12-31 23:30:00.000000');
  });

  it('refuses an invalid Date', () => {
    expect(() => formatMexicoCityLocal(new Date('nope'))).toThrow(/expected a valid Date: got an Invalid Date/);
    expect(() => formatMexicoCityOffset('2026-05-07' as unknown as Date)).toThrow(TimeFormatError);
  });
});

describe('time properties (2000-2100)', () => {
  it('parse(formatLocal(d)) and parse(formatOffset(d)) give d back', () => {
    fc.assert(
      fc.property(dates2000to2100, (date) => {
        expect(parseMexicoCityLocal(formatMexicoCityLocal(date)).getTime()).toBe(date.getTime());
        expect(parseOffsetTimestamp(formatMexicoCityOffset(date)).getTime()).toBe(date.getTime());
        expect(parseOffsetTimestamp(date.toISOString()).getTime()).toBe(date.getTime());
      }),
    );
  });

  it('local time is UTC minus six hours, checked against Date#toISOString', () => {
    fc.assert(
      fc.property(dates2000to2100, (date) => {
        const shifted = new Date(date.getTime() - SIX_HOURS_MS).toISOString();
        expect(formatMexicoCityLocal(date)).toBe(`${shifted.slice(0, 10)} ${shifted.slice(11, 23)}000`);
        expect(formatMexicoCity(date)).toBe(`${shifted.slice(0, 10)} ${shifted.slice(11, 16)} (Mexico City)`);
      }),
    );
  });

  it('format(parse(s)) gives s back for millisecond-precision layouts', () => {
    fc.assert(
      fc.property(dates2000to2100, (date) => {
        const text = formatMexicoCityLocal(date);
        expect(formatMexicoCityLocal(parseMexicoCityLocal(text))).toBe(text);
        expect(formatMexicoCityOffset(parseOffsetTimestamp(`${text}-06:00`))).toBe(`${text}-06:00`);
      }),
    );
  });
});
