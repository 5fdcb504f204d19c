// Every error class the runtime exports extends PaykitError, so one `instanceof PaykitError`
// tells a caller the failure came from paykit (and its message says what to do).
import { describe, expect, it } from 'vitest';
import * as runtime from '../src/index.ts';

describe('error classes', () => {
  it('every exported *Error class extends PaykitError', () => {
    const classes = Object.entries(runtime).filter(
      ([name, value]) => name.endsWith('Error') && typeof value === 'function',
    );
    expect(classes.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'ClabeError',
        'MoneyError',
        'TimeFormatError',
        'WebhookVerificationError',
        'UnexpectedResponseError',
      ]),
    );
    for (const [name, value] of classes) {
      expect({
        name,
        extendsPaykitError:
          (value as { prototype: unknown }).prototype instanceof runtime.PaykitError || value === runtime.PaykitError,
      }).toEqual({ name, extendsPaykitError: true });
    }
  });

  it('a domain error keeps its own name and its rule', () => {
    const error = (() => {
      try {
        runtime.parseClabe('12');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(runtime.PaykitError);
    expect(error).toBeInstanceOf(runtime.ClabeError);
    expect((error as runtime.ClabeError).name).toBe('ClabeError');
    expect((error as runtime.ClabeError).rule).toBe('length');
  });
});
