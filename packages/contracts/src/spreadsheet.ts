// One rule for every CSV paykit writes: a cell a spreadsheet would run as a formula (a leading
// = + - @, their full-width forms, a tab or a carriage return; but not a plain negative number) is
// prefixed with ' so it reads as text. The CLI's exports and the worker console's share it.

const FORMULA = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** The text of a CSV cell, with a formula neutralised ("=1+1" → "'=1+1"; "-12.50" stays). */
export function neutraliseFormula(text: string): string {
  return FORMULA.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}
