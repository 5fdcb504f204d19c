// The base of every error a paykit package throws. It lives here, below the request pipeline, so
// the domain errors (money, CLABE, time) extend it without importing HTTP code, and the runtime
// re-exports this same class: one `instanceof PaykitError` covers both packages.

export class PaykitError extends Error {
  // `unknown`: a caller's abort keeps its signal's reason as it was given, which need not be an Error.
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /** A JSON-safe view (no cause: causes are for debugging in-process). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message };
  }
}
