// Cash operations, driven by the control API: created pending with a unique 20-digit
// reference, then paid, expired or reversed. Each change of a closed-reference operation
// delivers a signed event to the client's active webhook; open-reference operations send none.
import type { CashOperation, CashOperationRequest } from '@paykit/contracts';
import { ControlError } from '../../control/errors.ts';
import type { SandboxRuntime } from '../../runtime.ts';
import type { Schema } from './spec.ts';
import { maskedClientId, type CashState, type StoredOperation } from './state.ts';

export type OperationStatusChange = Schema<'CashOperationStatus'>;

/**
 * sandbox choice (reference: "Other cash operation transitions: not shown"): an operation is
 * created pending; pending → paid, pending → expired, paid → reversed; anything else is 409.
 */
const TRANSITIONS: Record<CashOperation['status'], readonly OperationStatusChange[]> = {
  pending: ['paid', 'expired'],
  paid: ['reversed'],
  expired: [],
  reversed: [],
};

const EVENTS: Record<OperationStatusChange, Schema<'CashWebhookEventName'>> = {
  paid: 'webhook.paid.success',
  expired: 'webhook.expired.success',
  reversed: 'webhook.reversed.success',
};

export function createOperation(
  runtime: SandboxRuntime,
  state: CashState,
  input: CashOperationRequest,
  operationId: () => number,
): CashOperation {
  const apiKey = input.apiKey ?? state.keys.keys().next().value;
  if (apiKey === undefined) {
    throw new ControlError(
      404,
      'No cash api key is seeded.',
      'Add one with POST /_sandbox/seed { cash: [{ apiKey, apiSecret }] }.',
    );
  }
  if (!state.keys.has(apiKey)) {
    throw new ControlError(
      404,
      `No cash api key ${maskedClientId(apiKey)} is seeded.`,
      'Use a key of GET /_sandbox/seed, or add it with POST /_sandbox/seed.',
    );
  }
  let reference = runtime.random.digits(20);
  while (state.references.has(reference)) reference = runtime.random.digits(20);
  state.references.add(reference);
  const operation: StoredOperation = {
    apiKey,
    operation_id: operationId(),
    external_user_id: input.externalUserId,
    type: input.type,
    amount: input.amount,
    reference,
    status: 'pending',
    closed_reference: input.closedReference,
  };
  state.operations.set(operation.operation_id, operation);
  return view(operation);
}

export function setOperationStatus(
  runtime: SandboxRuntime,
  state: CashState,
  operationId: number,
  status: OperationStatusChange,
): CashOperation {
  const operation = state.operations.get(operationId);
  if (!operation)
    throw new ControlError(404, `No cash operation ${operationId}.`, 'Create one with POST /_sandbox/cash/operations.');
  const allowed = TRANSITIONS[operation.status];
  if (!allowed.includes(status)) {
    throw new ControlError(
      409,
      `Cash operation ${operationId} is ${operation.status}: it cannot become ${status}.`,
      allowed.length > 0
        ? `From ${operation.status} it can become ${allowed.join(' or ')}.`
        : `${operation.status} is final.`,
    );
  }
  operation.status = status;
  if (operation.closed_reference) deliverEvent(runtime, state, operation, status);
  return view(operation);
}

/**
 * sandbox choice: an event is sent to the webhook active at the moment of the change; with none
 * active (none created, or its activation still pending or failed) the event is not sent, and
 * not kept for later either.
 */
function deliverEvent(
  runtime: SandboxRuntime,
  state: CashState,
  operation: StoredOperation,
  status: OperationStatusChange,
): void {
  const webhook = state.activeWebhook(operation.apiKey);
  if (!webhook) return;
  const event = EVENTS[status];
  const body: Schema<'CashWebhookEvent'> = {
    event,
    operation_id: operation.operation_id,
    external_user_id: operation.external_user_id,
    type: operation.type,
    amount: operation.amount,
    reference: operation.reference,
    status,
    processed_at: runtime.clock.now().toISOString(),
  };
  runtime.deliveries.enqueue({
    clientId: maskedClientId(operation.apiKey),
    product: 'cash',
    eventType: event,
    eventId: `${operation.operation_id}:${event}`,
    url: webhook.endpointUrl,
    body,
    auth: { kind: 'cash-hmac', secret: webhook.secretToken },
  });
}

function view(operation: StoredOperation): CashOperation {
  const { apiKey: _apiKey, ...shown } = operation;
  return shown;
}
