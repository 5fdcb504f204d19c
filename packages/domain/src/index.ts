// @paykit/domain: the platform's domain primitives, pure functions with no I/O and no HTTP code,
// used by the runtime, the ledger, the apps and the clients. Exported by name; the rest of src/ is
// internal to the package.

// The base of every paykit error (the runtime's errors extend it too).
export { PaykitError } from './paykit-error.ts';

// Money: decimal strings to and from bigint centavos, exactly.
export { toCentavos, fromCentavos, formatMoney, MoneyError, type ToCentavosOptions } from './money.ts';

// Mexico City time (UTC-6, no daylight saving since 2022).
export {
  parseMexicoCityLocal,
  parseOffsetTimestamp,
  formatMexicoCity,
  formatMexicoCityLocal,
  formatMexicoCityOffset,
  TimeFormatError,
} from './time.ts';

// Accounts and people: CLABE, RFC.
export {
  parseClabe,
  isValidClabe,
  clabeControlDigit,
  ClabeError,
  type ClabeRule,
  type ParsedClabe,
} from './clabe.ts';
export { isValidRfc } from './rfc.ts';

// Card numbers: the Luhn rule, and what of a card may be shown (the runtime's redaction applies it).
export { isValidCardNumber, luhnCheckDigit } from './card.ts';
export {
  maskCardNumber,
  maskCardNumbersIn,
  isCardNumberField,
  isCardCodeField,
  isCardNumberDigits,
  maskCardNumberValue,
  looksLikeCardNumberValue,
} from './card-mask.ts';
