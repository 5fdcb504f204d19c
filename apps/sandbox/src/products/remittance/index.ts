// The remittance service: receive a remittance into a new private account of the core service.
import type { Seed } from '@paykit/contracts';
import { zReceiveRemittanceBody } from '@paykit/remittance-client/zod';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type * as z from 'zod';
import type { SandboxProduct, SandboxRuntime } from '../../runtime.ts';
import type { CoreService } from '../core/index.ts';
import type { Ok, Schema } from './spec.ts';

type RemittanceRequest = z.infer<typeof zReceiveRemittanceBody>;

/** The answer of POST /v2/remittances/receive: the spec's RemittanceReceiveResponse, every field present. */
export interface RemittanceAnswer extends Required<Schema<'RemittanceReceiveResponse'>> {
  /** sandbox choice: RECEIVED when ready to commit, INCOMPLETE otherwise (values not shown). */
  status: 'RECEIVED' | 'INCOMPLETE';
}

/** A received remittance as the sandbox keeps it. */
export interface ReceivedRemittance {
  answer: RemittanceAnswer;
  request: RemittanceRequest;
  clientId: string;
  ownerId: string;
  accountId: string;
  instrumentId: string;
  clabe: string;
  receivedAtMs: number;
}

/** sandbox choice: the fields a remittance needs to be ready to commit (required flags are not shown). */
const COMMIT_FIELDS = ['amount', 'currency', 'reference', 'partner_transaction_session_id'] as const;

/** sandbox choice: the reference shows no error bodies for this service; errors are `{ error, issues? }`. */
class RemittanceError extends Error {
  readonly status: number;
  readonly issues: { field: string; message: string }[] | undefined;

  constructor(status: number, message: string, issues?: { field: string; message: string }[]) {
    super(message);
    this.status = status;
    this.issues = issues;
  }
}

function sendError(reply: FastifyReply, error: RemittanceError): FastifyReply {
  return reply.code(error.status).send({ error: error.message, ...(error.issues ? { issues: error.issues } : {}) });
}

export class RemittanceService implements SandboxProduct {
  readonly name = 'remittance';

  readonly runtime: SandboxRuntime;
  readonly core: CoreService;

  /** By partner_transaction_session_id: a repeat gets the same answer, no second account. */
  readonly received = new Map<string, ReceivedRemittance>();

  constructor(runtime: SandboxRuntime, core: CoreService) {
    this.runtime = runtime;
    this.core = core;
  }

  register(app: FastifyInstance): void {
    app.setErrorHandler((error: FastifyError | RemittanceError, request, reply) => {
      if (error instanceof RemittanceError) return sendError(reply, error);
      const status = error.statusCode ?? 500;
      if (status === 413)
        return sendError(
          reply,
          new RemittanceError(400, `The request body is larger than ${this.runtime.settings.bodyLimitBytes} bytes.`),
        );
      if (status === 415)
        return sendError(
          reply,
          new RemittanceError(400, 'Send the remittance as a JSON object with Content-Type: application/json.'),
        );
      if (status >= 400 && status < 500)
        return sendError(
          reply,
          new RemittanceError(400, `Malformed request: ${error.message}. Send the remittance as a JSON object.`),
        );
      request.log.error({ err: error }, 'remittance handler failed');
      return sendError(
        reply,
        new RemittanceError(500, `Unexpected error in the sandbox remittance service: ${error.message}`),
      );
    });
    app.setNotFoundHandler((request, reply) =>
      sendError(
        reply,
        new RemittanceError(
          404,
          `No remittance operation at ${request.method} ${request.url}; the only one is POST /v2/remittances/receive.`,
        ),
      ),
    );

    // sandbox choice: no authentication (the reference declares no scheme for this operation).
    app.post('/v2/remittances/receive', async (request, reply) => {
      const parsed = zReceiveRemittanceBody.safeParse(request.body);
      if (!parsed.success) {
        // sandbox choice: 400 with the failing fields (error responses are not shown).
        const issues = parsed.error.issues.map((issue) => ({
          field: issue.path.map(String).join('.') || '(body)',
          message: issue.message,
        }));
        throw new RemittanceError(
          400,
          'The remittance is not valid: amount is a decimal string with two decimals ("1500.00"), date_of_birth a date (YYYY-MM-DD), every other field a string.',
          issues,
        );
      }
      return reply.code(200).send(this.receive(parsed.data).answer satisfies Ok<'receiveRemittance'>);
    });
  }

  /** Receives a remittance: a new private account (with a CLABE instrument) in the core service. */
  receive(request: RemittanceRequest): ReceivedRemittance {
    const sessionId = request.partner_transaction_session_id;
    const earlier = sessionId !== undefined ? this.received.get(sessionId) : undefined;
    if (earlier) return earlier;

    // sandbox choice: the reference shows no auth, so the account belongs to the first core client.
    const client = this.core.state.clients.values().next().value;
    if (!client)
      throw new RemittanceError(
        409,
        'The sandbox holds no core client to open the private account for: add one with POST /_sandbox/seed.',
      );
    const ownerId = this.runtime.random.uuid();
    const account = this.core.openPrivateAccount({
      clientId: client.clientId,
      ownerId,
      holderName: this.runtime.settings.remittance.holderName,
    });

    const ready = COMMIT_FIELDS.every((field) => request[field] !== undefined && request[field] !== '');
    const answer: RemittanceAnswer = {
      status: ready ? 'RECEIVED' : 'INCOMPLETE',
      // sandbox choice: without a session id in the request, the sandbox makes one up.
      partner_transaction_session_id: sessionId ?? this.runtime.random.uuid(),
      ready_for_commit: ready,
    };
    const received: ReceivedRemittance = {
      answer,
      request,
      clientId: client.clientId,
      ownerId,
      accountId: account.accountId,
      instrumentId: account.instrumentId,
      clabe: account.clabe,
      receivedAtMs: this.runtime.clock.nowMs(),
    };
    this.received.set(answer.partner_transaction_session_id, received);
    return received;
  }

  load(seed: Partial<Seed>): void {
    // Nothing to seed: remittances arrive through the API.
    void seed;
  }

  reset(): void {
    this.received.clear();
  }

  errorBody(status: number, message: string): unknown {
    return { error: message, status };
  }
}
