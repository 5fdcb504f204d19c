// webhookJson: bytes, text and parsed values read the same; what is not JSON throws the caller's error.
import { describe, expect, it } from 'vitest';
import { webhookJson } from '@paykit/runtime';

class NotJson extends Error {}

describe('webhookJson', () => {
  it('reads bytes and text as JSON, and passes a parsed value through', () => {
    const value = { event: 'charge_result', data: { amount: 100.0 } };
    const text = JSON.stringify(value);
    expect(webhookJson(text, () => new NotJson())).toEqual(value);
    expect(webhookJson(new TextEncoder().encode(text), () => new NotJson())).toEqual(value);
    expect(webhookJson(value, () => new NotJson())).toBe(value);
  });

  it('throws the error the caller builds for text that is not JSON', () => {
    expect(() => webhookJson('{', () => new NotJson('not json'))).toThrow(NotJson);
    expect(() => webhookJson(new Uint8Array([0x7b]), () => new NotJson('not json'))).toThrow('not json');
  });
});
