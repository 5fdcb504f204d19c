/** A control call that cannot be carried out: 404 (no such thing) or 409 (wrong state for it). */
export class ControlError extends Error {
  readonly status: 404 | 409;
  readonly hint: string | undefined;

  constructor(status: 404 | 409, message: string, hint?: string) {
    super(message);
    this.status = status;
    this.hint = hint;
  }
}
