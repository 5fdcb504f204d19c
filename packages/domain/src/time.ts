// The platform's clock is Mexico City's: UTC-6 all year (Mexico dropped daylight saving time in
// 2022). A token's `expires_at` comes WITHOUT an offset ("2026-05-07 12:00:00.000000") and must be
// read as UTC-6, not UTC and not the machine's zone; `created_at` carries "-06:00".
// Here "Mexico City" always means that fixed UTC-6, for any date: it is the platform's layout, not
// a historical time-zone lookup.
import { PaykitError } from './paykit-error.ts';

export class TimeFormatError extends PaykitError {
  override readonly name = 'TimeFormatError';
}

/** Minutes to add to Mexico City local time to get UTC. */
export const MEXICO_CITY_UTC_OFFSET_MINUTES = 360;
const OFFSET_MS = MEXICO_CITY_UTC_OFFSET_MINUTES * 60_000;

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[ Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** "2026-05-07 12:00:00.000000" (fraction optional) read as Mexico City local time → 2026-05-07T18:00:00.000Z. */
export function parseMexicoCityLocal(text: string): Date {
  if (typeof text !== 'string')
    throw new TimeFormatError(`expected a "YYYY-MM-DD HH:MM:SS.ffffff" string, got ${typeof text}`);
  const match = LOCAL.exec(text);
  if (!match) {
    if (WITH_OFFSET.test(text)) {
      throw new TimeFormatError(
        `${quote(text)} carries an offset: read it with parseOffsetTimestamp (parseMexicoCityLocal is for offset-less Mexico City times such as a token's expires_at)`,
      );
    }
    throw new TimeFormatError(
      `${quote(text)} is not a Mexico City local time: expected "YYYY-MM-DD HH:MM:SS" with an optional fraction, like "2026-05-07 12:00:00.000000"`,
    );
  }
  const [, year, month, day, hour, minute, second, fraction] = match;
  const local = wallClockMs(text, year, month, day, hour, minute, second, fraction);
  return new Date(local + OFFSET_MS);
}

/** "2026-05-06 12:00:00.000000-06:00" or ISO 8601 with "Z" or ±hh:mm → Date (digits past milliseconds are truncated). */
export function parseOffsetTimestamp(text: string): Date {
  if (typeof text !== 'string')
    throw new TimeFormatError(`expected a timestamp string with an offset, got ${typeof text}`);
  const match = WITH_OFFSET.exec(text);
  if (!match) {
    if (LOCAL.test(text)) {
      throw new TimeFormatError(
        `${quote(text)} has no offset: if it is Mexico City local time (a token's expires_at), read it with parseMexicoCityLocal`,
      );
    }
    throw new TimeFormatError(
      `${quote(text)} is not a timestamp with an offset: expected "YYYY-MM-DD HH:MM:SS[.ffffff]" followed by "Z" or ±hh:mm, like "2026-05-06 12:00:00.000000-06:00"`,
    );
  }
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '00',
    fraction,
    zulu,
    sign,
    offsetHours = '00',
    offsetMinutes = '00',
  ] = match;
  const wallClock = wallClockMs(text, year, month, day, hour, minute, second, fraction);
  if (zulu) return new Date(wallClock);
  const hours = Number(offsetHours);
  const minutes = Number(offsetMinutes);
  if (hours > 23 || minutes > 59)
    throw new TimeFormatError(`${quote(text)} has an impossible offset ${sign}${offsetHours}:${offsetMinutes}`);
  const offsetMs = (hours * 60 + minutes) * 60_000;
  // Local = UTC + offset, so UTC = local - offset.
  return new Date(sign === '-' ? wallClock + offsetMs : wallClock - offsetMs);
}

/** Date → "YYYY-MM-DD HH:MM:SS.ffffff" in Mexico City local time (the layout of a token's expires_at). */
export function formatMexicoCityLocal(date: Date): string {
  const local = localFields(date);
  return `${local.date} ${local.time}.${local.milliseconds}000`;
}

/** Date → "YYYY-MM-DD HH:MM:SS.ffffff-06:00" (the layout of a token's created_at). */
export function formatMexicoCityOffset(date: Date): string {
  return `${formatMexicoCityLocal(date)}-06:00`;
}

/** Date → "2026-05-07 12:00 (Mexico City)", for people. */
export function formatMexicoCity(date: Date): string {
  const local = localFields(date);
  return `${local.date} ${local.time.slice(0, 5)} (Mexico City)`;
}

function localFields(date: Date): { date: string; time: string; milliseconds: string } {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new TimeFormatError('expected a valid Date: got ' + (date instanceof Date ? 'an Invalid Date' : typeof date));
  }
  const local = new Date(date.getTime() - OFFSET_MS);
  const year = local.getUTCFullYear();
  if (year < 0 || year > 9999)
    throw new TimeFormatError(`year ${year} (Mexico City) does not fit the platform's four-digit layout`);
  return {
    date: `${pad(year, 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}`,
    time: `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`,
    milliseconds: pad(local.getUTCMilliseconds(), 3),
  };
}

/** The wall-clock fields as if they were UTC, after checking each is in range (Date.UTC would silently roll "02-30" into March). */
function wallClockMs(
  text: string,
  year = '',
  month = '',
  day = '',
  hour = '',
  minute = '',
  second = '',
  fraction = '',
): number {
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (mo < 1 || mo > 12) throw new TimeFormatError(`${quote(text)} has month ${month}: months run 01-12`);
  if (d < 1 || d > daysInMonth(y, mo))
    throw new TimeFormatError(`${quote(text)} has day ${day}, which ${year}-${month} does not have`);
  if (h > 23 || mi > 59 || s > 59)
    throw new TimeFormatError(`${quote(text)} has an impossible time of day ${hour}:${minute}:${second}`);
  const value = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  value.setUTCFullYear(y, mo - 1, d);
  value.setUTCHours(h, mi, s, ms);
  return value.getTime();
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
