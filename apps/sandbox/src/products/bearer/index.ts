// Billpay, gift cards and lottery: bearer tokens issued out of band (the seed), one account call.
import type { operations as BillpayOperations } from '@paykit/billpay-client/paths';
import type { Seed } from '@paykit/contracts';
import type { operations as GiftCardsOperations } from '@paykit/gift-cards-client/paths';
import type { operations as LotteryOperations } from '@paykit/lottery-client/paths';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxProduct, SandboxRuntime } from '../../runtime.ts';
import type { SuccessBody } from '../../spec-types.ts';

export type BearerProductName = 'billpay' | 'gift-cards' | 'lottery';

interface TokenEntry {
  /** Lottery issues a payee identifier with each token. */
  payeeId: string | undefined;
  /** Lottery tokens may expire (sandbox clock); billpay and gift card keys do not. */
  expiresAtMs: number | undefined;
}

/**
 * sandbox choice: the reference does not show the account's response (not even its JSON type:
 * each spec's ClientAccount is open); the sandbox answers this object, with the lottery payee
 * identifier for lottery.
 */
export interface BearerClientAccount {
  product: BearerProductName;
  client_name: string;
  status: 'ACTIVE';
  payee_id?: string;
}

/** What the three specs document for GET /api/v1/client/account: the answer must fit each. */
type SpecClientAccount = SuccessBody<BillpayOperations['getClientAccount']> &
  SuccessBody<GiftCardsOperations['getClientAccount']> &
  SuccessBody<LotteryOperations['getClientAccount']>;

/** sandbox choice: every bearer token belongs to the default seed's client. */
export const BEARER_CLIENT_NAME = 'ACME Pagos SA de CV';

/** What the header is called in each product's reference (billpay sends an API key as the bearer). */
const CREDENTIAL: Record<BearerProductName, string> = {
  billpay: 'API key',
  'gift-cards': 'access token',
  lottery: 'access token',
};

export class BearerProduct implements SandboxProduct {
  readonly runtime: SandboxRuntime;
  readonly name: BearerProductName;

  readonly tokens = new Map<string, TokenEntry>();

  constructor(runtime: SandboxRuntime, name: BearerProductName) {
    this.runtime = runtime;
    this.name = name;
  }

  register(app: FastifyInstance): void {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) return reply.code(status).send({ error: error.message });
      request.log.error({ err: error }, `${this.name} handler failed`);
      return reply.code(500).send({ error: `Unexpected error in the sandbox ${this.name} service.` });
    });
    app.setNotFoundHandler((request, reply) =>
      reply.code(404).send({
        error: `No ${this.name} operation at ${request.method} ${request.url}; the sandbox serves GET /api/v1/client/account.`,
      }),
    );

    app.get('/api/v1/client/account', async (request, reply) => {
      const entry = this.#authenticate(request, reply);
      if (!entry) return reply;
      const account: BearerClientAccount = { product: this.name, client_name: BEARER_CLIENT_NAME, status: 'ACTIVE' };
      if (this.name === 'lottery' && entry.payeeId !== undefined) account.payee_id = entry.payeeId;
      return reply.code(200).send(account satisfies SpecClientAccount);
    });
  }

  load(seed: Partial<Seed>): void {
    const bearer = seed.bearer;
    if (!bearer) return;
    if (this.name === 'lottery') {
      for (const t of bearer.lottery ?? []) {
        this.tokens.set(t.token, {
          payeeId: t.payeeId,
          expiresAtMs: t.expiresAt === undefined ? undefined : Date.parse(t.expiresAt),
        });
      }
      return;
    }
    for (const token of bearer[this.name] ?? []) this.tokens.set(token, { payeeId: undefined, expiresAtMs: undefined });
  }

  reset(): void {
    this.tokens.clear();
  }

  errorBody(status: number, message: string): unknown {
    return { error: message, status };
  }

  /** The token's entry, or undefined after answering 401. Never echoes the token. */
  #authenticate(request: FastifyRequest, reply: FastifyReply): TokenEntry | undefined {
    const credential = CREDENTIAL[this.name];
    const deny = (error: string) => {
      // sandbox choice: the 401 body is not shown; `{ error }` says what to check.
      void reply.code(401).header('www-authenticate', 'Bearer').send({ error });
      return undefined;
    };
    const header = request.headers.authorization;
    if (!header)
      return deny(
        `Missing Authorization header: send "Authorization: Bearer <${credential}>" with the ${this.name} ${credential} issued to you.`,
      );
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      return deny(`Malformed Authorization header: use the Bearer scheme, "Authorization: Bearer <${credential}>".`);
    const entry = this.tokens.get(match[1]!);
    if (!entry)
      return deny(
        `Invalid ${credential}: it is not a ${this.name} ${credential} of this environment (sandbox and production credentials are separate; sandbox ones: GET /_sandbox/seed).`,
      );
    if (entry.expiresAtMs !== undefined && this.runtime.clock.nowMs() >= entry.expiresAtMs) {
      return deny(`Expired ${credential}: it is no longer valid; get a new ${this.name} ${credential} issued.`);
    }
    return entry;
  }
}
