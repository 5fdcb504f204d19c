import { describe, expect, it } from 'vitest';
import { zRemittanceReceiveRequest, zRemittanceReceiveResponse } from '@paykit/remittance-client/zod';
import { API_VERSION, receiveRemittance } from '@paykit/remittance-client';

describe('remittance schemas', () => {
  it('reads the receive response', () => {
    const response = { status: 'RECEIVED', partner_transaction_session_id: 'pts-1', ready_for_commit: true };
    expect(zRemittanceReceiveResponse.parse(response)).toEqual(response);
    expect(zRemittanceReceiveResponse.safeParse({ ...response, ready_for_commit: 'yes' }).success).toBe(false);
  });

  it('takes the amount as a two-decimal string and date_of_birth as a date; no field is required', () => {
    expect(zRemittanceReceiveRequest.safeParse({}).success).toBe(true);
    expect(zRemittanceReceiveRequest.safeParse({ amount: '250.00', date_of_birth: '1990-02-28' }).success).toBe(true);
    expect(zRemittanceReceiveRequest.safeParse({ amount: 250 }).success).toBe(false);
    expect(zRemittanceReceiveRequest.safeParse({ date_of_birth: '28/02/1990' }).success).toBe(false);
  });

  it('exports the SDK function and the API revision', () => {
    expect(typeof receiveRemittance).toBe('function');
    expect(API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
