// The base of every error a paykit client or helper throws, in a module of its own: the domain
// helpers (money, CLABE, time, signing) extend it without importing the request pipeline.

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
