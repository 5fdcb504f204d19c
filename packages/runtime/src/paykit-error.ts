// The base of every paykit error lives in @paykit/domain (its money, CLABE and time errors extend
// it); the runtime's errors extend the same class, so one `instanceof PaykitError` covers both.
export { PaykitError } from '@paykit/domain';
