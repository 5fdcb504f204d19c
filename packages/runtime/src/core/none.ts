// "None" means none. Older platform answers write an absent value as the string "None" (Python's
// str(None)) where newer ones write null or leave the field out: deleted_at, deletedAt, blockedAt,
// deletedBy, blockedBy, an instrument's expirationDate. Every reader asks here, nowhere else.

/** True for null, undefined and the string "None": the platform's three ways of saying "none". */
export function isNone(value: unknown): value is null | undefined | 'None' {
  return value === null || value === undefined || value === 'None';
}

/** The value, or null when it is one of the forms of "none". */
export function noneToNull<T>(value: T | null | undefined | 'None'): Exclude<T, 'None'> | null {
  return isNone(value) ? null : (value as Exclude<T, 'None'>);
}
