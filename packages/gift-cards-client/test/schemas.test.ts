import { describe, expect, it } from 'vitest';
import { zClientAccount } from '@paykit/gift-cards-client/zod';
import { API_VERSION, getClientAccount } from '@paykit/gift-cards-client';

describe('gift-cards schemas', () => {
  it('reads any account body: the reference does not show it', () => {
    expect(zClientAccount.safeParse({ anything: [1, 'two'] }).success).toBe(true);
    expect(zClientAccount.safeParse(null).success).toBe(true);
  });

  it('exports the SDK function and the API revision', () => {
    expect(typeof getClientAccount).toBe('function');
    expect(API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
