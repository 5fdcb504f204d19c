// The three ways the store fails, as classes a caller can tell apart: the gateway answers 503 for
// StoreUnavailableError (the platform redelivers), refuses to start on StoreConfigError, and treats
// StoreInputError as its own bug (the event it built cannot be stored as given).
// No message ever carries a password: they name the database by its description.

/** The store cannot be reached / did not answer in time. The message says which database and what to check. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** A bad DATABASE_URL, data directory or pool setting: the message names the problem and what to do. */
export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
}

/** A value the store was asked to write breaks its rules (a malformed CLABE, a NUL character…): the message says which field. */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
}

/** The migration files and the database disagree (a released file was edited, renamed or removed), or one failed to apply. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}
