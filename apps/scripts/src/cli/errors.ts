// Exit codes scripts can rely on: 0 ok, 1 the operation failed, 2 the command was used wrongly.
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Wrong usage (a missing or malformed option, an unknown profile): exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The operation failed for a reason the user can act on: exit 1, with what to do. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly hint: string | undefined;
  constructor(message: string, hint?: string) {
    super(message);
    this.hint = hint;
  }
}
