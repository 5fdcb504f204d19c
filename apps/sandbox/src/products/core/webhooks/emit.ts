// Emitting core events: the envelope (MONEY_IN, STATUS_UPDATE, CEP, REFUND) or the flat REPORT,
// delivered to the client's active webhook of that type with its authentication. With no
// active webhook of that type the event is recorded but not delivered (as the platform would).
import type { Answer } from '../../../deliveries.ts';
import type { SandboxRuntime } from '../../../runtime.ts';
import type { Schema } from '../spec.ts';
import { mexicoCityDate } from '../time.ts';
import type { CoreState, EmittedEvent, WebhookConfig } from '../state.ts';

/** The events sent in the `{ id_msg, msg_name, msg_date, body }` envelope. */
type EnvelopedEvent = Schema<'MoneyInEvent'> | Schema<'StatusUpdateEvent'> | Schema<'CepEvent'> | Schema<'RefundEvent'>;
export type EnvelopedType = EnvelopedEvent['msg_name'];
type EnvelopeOf<T extends EnvelopedType> = Extract<EnvelopedEvent, { msg_name: T }>;

export interface EmitOptions {
  /** Told of the receiver's answers (MONEY_IN: a 422 with refundReason refunds the credit). */
  onAnswer?: (answer: Answer) => void | Promise<void>;
}

export function emitEnvelopedEvent<T extends EnvelopedType>(
  runtime: SandboxRuntime,
  state: CoreState,
  clientId: string,
  type: T,
  body: EnvelopeOf<T>['body'],
  options: EmitOptions = {},
): EmittedEvent {
  const id = runtime.random.uuid();
  // TypeScript cannot pair a generic `type` with its body: the signature above does.
  const envelope = {
    id_msg: id,
    msg_name: type,
    msg_date: mexicoCityDate(runtime.clock.nowMs()),
    body,
  } as EnvelopeOf<T>;
  return deliver(runtime, state, clientId, type, id, envelope, options);
}

export function emitReportEvent(
  runtime: SandboxRuntime,
  state: CoreState,
  clientId: string,
  body: Schema<'ReportEvent'>,
): EmittedEvent {
  // REPORT has no id of its own: receivers dedupe it by file_name.
  return deliver(runtime, state, clientId, 'REPORT', body.file_name, body, {});
}

function deliver(
  runtime: SandboxRuntime,
  state: CoreState,
  clientId: string,
  type: WebhookConfig['webhookType'],
  id: string,
  payload: EnvelopedEvent | Schema<'ReportEvent'>,
  options: EmitOptions,
): EmittedEvent {
  const webhook = state.activeWebhook(clientId, type);
  const event: EmittedEvent = {
    clientId,
    type,
    id,
    body: payload,
    delivered: webhook !== undefined,
    atMs: runtime.clock.nowMs(),
  };
  state.events.push(event);
  if (webhook) {
    runtime.deliveries.enqueue({
      clientId,
      product: 'core',
      eventType: type,
      eventId: id,
      url: webhook.url,
      body: payload,
      // NO_AUTH sends no Authorization header. OAUTH's protocol is not shown: the sandbox sends
      // the registered token as a bearer, like AUTH.
      auth: webhook.authType === 'NO_AUTH' ? { kind: 'none' } : { kind: 'bearer', token: webhook.token },
      ...(options.onAnswer ? { onAnswer: options.onAnswer } : {}),
    });
  }
  return event;
}
