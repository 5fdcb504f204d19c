// Core timestamps: Mexico City local time, UTC-6 all year (no DST since 2022). The two layouts of
// the token are the runtime's (the same functions the clients parse them with); the others are
// layouts only the sandbox writes.
import { formatMexicoCityLocal, formatMexicoCityOffset } from '@paykit/domain';

const OFFSET_MS = -6 * 3600 * 1000;

function parts(ms: number): { date: string; time: string } {
  const iso = new Date(ms + OFFSET_MS).toISOString(); // 2026-05-07T06:00:00.123Z, shifted to local
  return { date: iso.slice(0, 10), time: iso.slice(11, 23) };
}

/** `YYYY-MM-DD HH:MM:SS.ffffff` in Mexico City time, no offset (the token's expires_at). */
export function mexicoCityLocal(ms: number): string {
  return formatMexicoCityLocal(new Date(ms));
}

/** `YYYY-MM-DD HH:MM:SS.ffffff-06:00` (token created_at/updated_at, webhook createdAt/updatedAt). */
export function mexicoCityWithOffset(ms: number): string {
  return formatMexicoCityOffset(new Date(ms));
}

/** ISO 8601 with the -06:00 offset (`2026-05-07T06:00:00.123-06:00`), for date-time fields. */
export function isoMexicoCity(ms: number): string {
  const { date, time } = parts(ms);
  return `${date}T${time}-06:00`;
}

/** `YYYY-MM-DD` in Mexico City (an event's msg_date). */
export function mexicoCityDate(ms: number): string {
  return parts(ms).date;
}

/** `YYYY-MM-DD HH:MM:SS` in Mexico City (MONEY_IN transaction_date). */
export function mexicoCitySeconds(ms: number): string {
  const { date, time } = parts(ms);
  return `${date} ${time.slice(0, 8)}`;
}
