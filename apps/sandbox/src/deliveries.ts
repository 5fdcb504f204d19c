// Webhook delivery: one FIFO queue per client, sent one at a time (or `concurrency` at a time) over real HTTP with the
// product's authentication (core: the registered bearer token; cash: an HMAC-SHA256 signature
// of the raw payload; direct debit: the Authorization value configured for the endpoint), a timeout, and redelivery on the sandbox clock.
// The reference does not show the retry schedule: the sandbox's choice is
// settings.delivery.redeliverySeconds, and it is configurable.
import type { Delivery, Faults } from '@paykit/contracts';
import { hmacSha256Hex } from '@paykit/runtime';
import type { SandboxClock } from './clock.ts';
import type { Counters } from './counters.ts';
import type { SeededRandom } from './random.ts';

export type DeliveryAuth =
  | { kind: 'bearer'; token: string }
  | { kind: 'none' }
  | { kind: 'cash-hmac'; secret: string }
  | { kind: 'authorization'; value: string };

export interface Answer {
  status: number;
  body: string;
}

export interface DeliveryRequest {
  clientId: string;
  product: Delivery['product'];
  eventType: string;
  /** id_msg for core, `<operation_id>:<event>` for cash: what a receiver deduplicates on. */
  eventId: string;
  url: string;
  body: unknown;
  auth: DeliveryAuth;
  /** One attempt and no redelivery (the cash activation test). */
  once?: boolean;
  /** Told of every HTTP answer (not of network errors); a 422 to MONEY_IN triggers a refund. */
  onAnswer?: (answer: Answer) => void | Promise<void>;
  /** Told when the delivery will not be attempted again. */
  onSettled?: (delivery: Delivery) => void | Promise<void>;
}

export interface DeliverySettings {
  timeoutMs: number;
  redeliverySeconds: number[];
}

interface Entry {
  record: Delivery;
  request: DeliveryRequest;
  payload: string;
}

export class DeliveryQueue {
  readonly #records: Delivery[] = [];
  readonly #queues = new Map<string, Entry[]>();
  /** Deliveries in flight per client. */
  readonly #busy = new Map<string, number>();
  readonly #inFlight = new Set<Promise<void>>();
  #seq = 0;
  #closed = false;

  private readonly clock: SandboxClock;
  private readonly random: SeededRandom;
  private readonly counters: Counters;
  private readonly settings: () => DeliverySettings;
  private readonly faults: () => Faults;

  constructor(
    clock: SandboxClock,
    random: SeededRandom,
    counters: Counters,
    settings: () => DeliverySettings,
    faults: () => Faults,
  ) {
    this.clock = clock;
    this.random = random;
    this.counters = counters;
    this.settings = settings;
    this.faults = faults;
  }

  /** Queues an event for delivery (several copies when the duplicates fault is on). */
  enqueue(request: DeliveryRequest): Delivery[] {
    const { min, max } = this.faults().deliveries.duplicates;
    const copies = request.once ? 1 : this.random.int(min, Math.max(min, max));
    const payload = JSON.stringify(request.body);
    const created: Delivery[] = [];
    for (let i = 0; i < copies; i++) {
      const record: Delivery = {
        id: `dlv_${String(++this.#seq).padStart(6, '0')}`,
        clientId: request.clientId,
        product: request.product,
        eventType: request.eventType,
        eventId: request.eventId,
        url: request.url,
        state: 'pending',
        attempts: [],
        nextAttemptAt: this.clock.now().toISOString(),
        body: request.body,
      };
      this.#records.push(record);
      created.push(record);
      this.#push({ record, request, payload });
    }
    return created;
  }

  list(filter: { clientId?: string; eventType?: string; state?: Delivery['state'] } = {}): Delivery[] {
    return this.#records.filter(
      (d) =>
        (!filter.clientId || d.clientId === filter.clientId) &&
        (!filter.eventType || d.eventType === filter.eventType) &&
        (!filter.state || d.state === filter.state),
    );
  }

  /** Resolves once nothing is queued or in flight (redeliveries waiting on the clock excepted). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0 || [...this.#queues.values()].some((q) => q.length > 0)) {
      await Promise.all([...this.#inFlight]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  close(): void {
    this.#closed = true;
    this.#queues.clear();
  }

  #push(entry: Entry): void {
    if (this.#closed) return;
    const queue = this.#queues.get(entry.record.clientId) ?? [];
    queue.push(entry);
    if (this.faults().deliveries.reorder) this.random.shuffle(queue);
    this.#queues.set(entry.record.clientId, queue);
    this.#pump(entry.record.clientId);
  }

  #pump(clientId: string): void {
    const limit = this.faults().deliveries.concurrency;
    while (!this.#closed && (this.#busy.get(clientId) ?? 0) < limit) {
      const entry = this.#queues.get(clientId)?.shift();
      if (!entry) return;
      this.#busy.set(clientId, (this.#busy.get(clientId) ?? 0) + 1);
      const run = this.#attempt(entry).finally(() => {
        this.#busy.set(clientId, this.#busy.get(clientId)! - 1);
        this.#inFlight.delete(run);
        this.#pump(clientId);
      });
      this.#inFlight.add(run);
    }
  }

  async #attempt({ record, request, payload }: Entry): Promise<void> {
    const { timeoutMs, redeliverySeconds } = this.settings();
    const delayMs = this.faults().deliveries.delayMs;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'paykit-sandbox' };
    if (request.auth.kind === 'bearer') headers.authorization = `Bearer ${request.auth.token}`;
    if (request.auth.kind === 'authorization') headers.authorization = request.auth.value;
    if (request.auth.kind === 'cash-hmac') {
      headers['x-webhook-timestamp'] = String(Math.floor(this.clock.nowMs() / 1000));
      headers['x-webhook-signature'] = hmacSha256Hex(request.auth.secret, payload);
    }
    const at = this.clock.now().toISOString();
    const started = performance.now();
    let answer: Answer | undefined;
    let error: string | null = null;
    try {
      const response = await fetch(record.url, {
        method: 'POST',
        headers,
        body: payload,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
      answer = { status: response.status, body: await response.text() };
    } catch (cause) {
      error =
        cause instanceof Error && cause.name === 'TimeoutError'
          ? `no answer within ${timeoutMs} ms`
          : describeNetworkError(cause);
    }
    record.attempts.push({
      at,
      status: answer?.status ?? null,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    this.counters.deliverySent(answer?.status);
    if (answer) await request.onAnswer?.(answer);

    if (answer && answer.status >= 200 && answer.status < 300) record.state = 'delivered';
    else if (answer?.status === 422) record.state = 'rejected';
    else {
      const wait = redeliverySeconds[record.attempts.length - 1];
      if (request.once || wait === undefined || this.#closed) record.state = 'failed';
      else {
        record.state = 'retrying';
        const due = this.clock.nowMs() + wait * 1000;
        record.nextAttemptAt = new Date(due).toISOString();
        this.clock.schedule(due, `redeliver ${record.id}`, () => this.#push({ record, request, payload }));
        return;
      }
    }
    record.nextAttemptAt = null;
    await request.onSettled?.(record);
  }
}

function describeNetworkError(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  const code = (inner as { code?: unknown })?.code;
  return `network error${typeof code === 'string' ? ` ${code}` : ''}: ${inner instanceof Error ? inner.message : String(inner)}`;
}
