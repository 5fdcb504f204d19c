// JSON text that PostgreSQL's jsonb accepts. JSON allows two things jsonb refuses: the escape
// \u0000 and a lone UTF-16 surrogate (JSON.stringify writes those as \udXXX escapes). One such
// event would fail the whole group-commit batch, so both become U+FFFD here; the exact bytes
// received are kept untouched in raw_body. Deep nesting is refused outright: PostgreSQL fails past
// its stack depth (about 10,000 levels) and PGlite was seen spinning for minutes on 100,000.
import { StoreInputError } from './errors.ts';

// The escapes of JSON text, read from the left: a run of escaped backslashes (kept, one match),
// or a \u escape jsonb refuses (replaced). Matching "\\" pairs as a whole keeps the reading
// aligned, so "\\u0000" is an escaped backslash before plain "u0000". Linear, and one callback per
// run: a pattern such as /(\\+)u…/ backtracks over a run of backslashes from every position
// (hours for a 1 MB body of them).
const ESCAPES = /(?:\\\\)+|\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;
/** Whether the text may hold such an escape at all (loose, and cheap: most texts skip the replace). */
const MAY_HOLD_REFUSED = /\\u(?:0000|d[89a-f])/i;

export const MAX_DEPTH = 1000;

/** JSON.stringify for a jsonb column; StoreInputError (naming `field`) for what has no JSON form. */
export function toJsonbText(value: unknown, field: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StoreInputError(
      `${field} cannot be written as JSON (${(error as Error).message}): pass plain JSON values (no BigInt, no cycles)`,
    );
  }
  if (text === undefined)
    throw new StoreInputError(`${field} is ${typeof value}, which has no JSON form: pass the parsed JSON, or null`);
  if (nestingDepth(Buffer.from(text)) > MAX_DEPTH) {
    throw new StoreInputError(
      `${field} nests arrays and objects more than ${MAX_DEPTH} levels deep, which no platform event does: it cannot be stored as jsonb`,
    );
  }
  return jsonbSafe(text);
}

/**
 * JSON.stringify's text with the two escapes jsonb refuses (and PostgreSQL cannot turn into text
 * either) replaced by U+FFFD: what the text would have held had it been sent as a text value.
 */
export function jsonbSafe(json: string): string {
  if (!MAY_HOLD_REFUSED.test(json)) return json;
  return json.replace(ESCAPES, (escape: string) => (escape[1] === '\\' ? escape : '\\ufffd'));
}

/**
 * UTF-8 JSON text PostgreSQL can read as jsonb as it is: no escape jsonb refuses (checked loosely:
 * any \u0000 or \uD8xx–\uDFxx, escaped or not, sends the text through toJsonbText instead) and no
 * nesting past MAX_DEPTH. Whether it is JSON at all is the caller's promise.
 */
export function isJsonbReady(json: Uint8Array): boolean {
  const bytes = Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  // Most bodies hold no \u escape at all; for the others, latin1 makes a string the ASCII pattern
  // reads alike (no byte of a multi-byte UTF-8 character is a backslash or a letter).
  if (bytes.includes('\\u') && MAY_HOLD_REFUSED.test(bytes.toString('latin1'))) return false;
  // Each level opens with a bracket of its own: a text this short cannot nest too deep.
  return bytes.length <= MAX_DEPTH || nestingDepth(bytes) <= MAX_DEPTH;
}

/** The deepest nesting of [ and { in UTF-8 JSON text (brackets inside strings do not count). */
function nestingDepth(json: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < json.length; index++) {
    const code = json[index]!;
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}
