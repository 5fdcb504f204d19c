// JSON text that PostgreSQL's jsonb accepts. JSON allows two things jsonb refuses: the escape
// \u0000 and a lone UTF-16 surrogate (JSON.stringify writes those as \udXXX escapes). One such
// event would fail the whole group-commit batch, so both become U+FFFD here; the exact bytes
// received are kept untouched in raw_body. Deep nesting is refused outright: PostgreSQL fails past
// its stack depth (about 10,000 levels) and PGlite was seen spinning for minutes on 100,000.
import { StoreInputError } from './errors.ts';

// An escape preceded by an even number of backslashes is a real escape (an odd number means the
// backslash itself was escaped and the "u0000" is plain text).
const REFUSED_ESCAPES = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/gi;

export const MAX_DEPTH = 1000;

/** JSON.stringify for a jsonb column; StoreInputError (naming `field`) for what has no JSON form. */
export function toJsonbText(value: unknown, field: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StoreInputError(`${field} cannot be written as JSON (${(error as Error).message}): pass plain JSON values (no BigInt, no cycles)`);
  }
  if (text === undefined) throw new StoreInputError(`${field} is ${typeof value}, which has no JSON form: pass the parsed JSON, or null`);
  if (nestingDepth(text) > MAX_DEPTH) {
    throw new StoreInputError(`${field} nests arrays and objects more than ${MAX_DEPTH} levels deep, which no platform event does: it cannot be stored as jsonb`);
  }
  return text.replace(REFUSED_ESCAPES, (escape: string, backslashes: string) => (backslashes.length % 2 === 1 ? `${backslashes}ufffd` : escape));
}

/**
 * JSON text PostgreSQL can read as jsonb as it is: no escape jsonb refuses (checked loosely: any
 * \u0000 or \uD8xx–\uDFxx, escaped or not, sends the text through toJsonbText instead) and no
 * nesting past MAX_DEPTH. Whether it is JSON at all is the caller's promise.
 */
export function isJsonbReady(json: string): boolean {
  return !/\\u(0000|d[89a-f])/i.test(json) && nestingDepth(json) <= MAX_DEPTH;
}

/** The deepest nesting of [ and { in JSON text (brackets inside strings do not count). */
function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < json.length; index++) {
    const code = json.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // a backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}
