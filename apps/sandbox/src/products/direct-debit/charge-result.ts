// The charge_result event of a charge, in the documented forms: the current one carries every
// field, those unrelated to the outcome null; the older one only charge_id, charge_result and
// charge_reference (seed webhook `form: 'older'`).
import type { ChargeResultRequest, Seed } from '@paykit/contracts';
import type { Schema } from './spec.ts';

export type DirectDebitWebhook = NonNullable<NonNullable<Seed['directDebit']>['webhook']>;

export function chargeResultEvent(
  charge: { id: string; reference: string | null; declined_reason: string | null },
  outcome: ChargeResultRequest,
  form: DirectDebitWebhook['form'],
  at: string,
): Schema<'ChargeResultEvent'> {
  const core = { charge_id: charge.id, charge_result: outcome.result, charge_reference: charge.reference };
  if (form === 'older') return { event: 'charge_result', timestamp: at, data: core };
  const verified = outcome.ownershipVerificationResult ?? null;
  return {
    event: 'charge_result',
    timestamp: at,
    data: {
      ...core,
      debt_id: null,
      declined_reason: charge.declined_reason,
      // sandbox choice: the risk engine passes every charge (its other values are not shown).
      risk_status: 'ok',
      risk_reason: null,
      ownership_verification_result: verified,
      ownership_verification_result_at: verified === null ? null : at,
      // sandbox choice: the bank's view of the owner is not simulated.
      ownership_information: null,
    },
  };
}
