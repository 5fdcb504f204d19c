// The delivery queue over real HTTP to a real receiving server.
import { createHmac } from 'node:crypto';
import { Faults } from '@paykit/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxClock } from '../src/clock.ts';
import { Counters } from '../src/counters.ts';
import { DeliveryQueue, type DeliverySettings } from '../src/deliveries.ts';
import { SeededRandom } from '../src/random.ts';
import { startReceiver, type Receiver } from './helpers.ts';

describe('webhook deliveries', () => {
  let receiver: Receiver;
  let clock: SandboxClock;
  let faults: Faults;
  let settings: DeliverySettings;
  let queue: DeliveryQueue;

  beforeEach(async () => {
    receiver = await startReceiver();
    clock = new SandboxClock({ mode: 'manual', start: '2026-05-07T18:00:00Z' });
    faults = Faults.parse({});
    settings = { timeoutMs: 5000, redeliverySeconds: [10, 60] };
    queue = new DeliveryQueue(
      clock,
      new SeededRandom('deliveries'),
      new Counters(),
      () => settings,
      () => faults,
    );
  });
  afterEach(async () => {
    queue.close();
    clock.stop();
    await receiver.close();
  });

  const event = (n: number) => ({
    clientId: 'c1',
    product: 'core' as const,
    eventType: 'MONEY_IN',
    eventId: `evt-${n}`,
    url: `${receiver.url}/hook`,
    body: { n },
    auth: { kind: 'bearer' as const, token: 't'.repeat(32) },
  });

  it('sends the JSON body with the registered bearer token, in order per client', async () => {
    for (let n = 1; n <= 5; n++) queue.enqueue(event(n));
    await queue.idle();
    expect(receiver.requests.map((r) => r.json)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
    expect(receiver.requests.every((r) => r.headers.authorization === `Bearer ${'t'.repeat(32)}`)).toBe(true);
    expect(queue.list().every((d) => d.state === 'delivered' && d.attempts.length === 1)).toBe(true);
  });

  it('signs cash deliveries over the exact bytes sent', async () => {
    const secret = 'ab'.repeat(32);
    queue.enqueue({
      ...event(1),
      product: 'cash',
      eventType: 'webhook.paid.success',
      auth: { kind: 'cash-hmac', secret },
    });
    await queue.idle();
    const [request] = receiver.requests;
    expect(request?.headers['x-webhook-signature']).toBe(
      createHmac('sha256', secret).update(request!.raw).digest('hex'),
    );
    expect(request?.headers['x-webhook-timestamp']).toBe(String(Date.parse('2026-05-07T18:00:00Z') / 1000));
    expect(request?.headers.authorization).toBeUndefined();
  });

  it('redelivers on the sandbox clock after a 5xx, then gives up after the schedule', async () => {
    receiver.answer = () => ({ status: 503 });
    const [delivery] = queue.enqueue(event(1));
    await queue.idle();
    expect(delivery?.state).toBe('retrying');
    expect(delivery?.nextAttemptAt).toBe('2026-05-07T18:00:10.000Z');
    await clock.advance(9_000);
    await queue.idle();
    expect(receiver.requests).toHaveLength(1);
    await clock.advance(1_000);
    await queue.idle();
    expect(receiver.requests).toHaveLength(2);
    await clock.advance(60_000);
    await queue.idle();
    expect(receiver.requests).toHaveLength(3);
    expect(delivery?.state).toBe('failed');
    expect(delivery?.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
  });

  it('stops at a 422 (a receiver decision, not a failure) and tells the sender the answer', async () => {
    receiver.answer = () => ({ status: 422, body: { refundReason: 'unknown beneficiary' } });
    const answers: string[] = [];
    const [delivery] = queue.enqueue({ ...event(1), onAnswer: (a) => void answers.push(`${a.status} ${a.body}`) });
    await queue.idle();
    expect(delivery?.state).toBe('rejected');
    expect(answers).toEqual(['422 {"refundReason":"unknown beneficiary"}']);
    await clock.advance(3600_000);
    await queue.idle();
    expect(receiver.requests).toHaveLength(1);
  });

  it('counts a receiver that does not answer in time as a failure and redelivers', async () => {
    settings = { timeoutMs: 200, redeliverySeconds: [10] };
    receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 1000));
    const [delivery] = queue.enqueue(event(1));
    await queue.idle();
    expect(delivery?.attempts[0]?.error).toBe('no answer within 200 ms');
    expect(delivery?.state).toBe('retrying');
  });

  it('records a network error (nothing listening) and redelivers', async () => {
    const [delivery] = queue.enqueue({ ...event(1), url: 'http://127.0.0.1:9/unreachable' });
    await queue.idle();
    expect(delivery?.attempts[0]?.status).toBeNull();
    expect(delivery?.attempts[0]?.error).toMatch(/^network error/);
    expect(delivery?.state).toBe('retrying');
  });

  it('sends each event 1 to 3 times with the duplicates fault, every copy with the same event id', async () => {
    faults = Faults.parse({ deliveries: { duplicates: { min: 1, max: 3 } } });
    for (let n = 1; n <= 20; n++) queue.enqueue(event(n));
    await queue.idle();
    const perEvent = new Map<unknown, number>();
    for (const r of receiver.requests)
      perEvent.set((r.json as { n: number }).n, (perEvent.get((r.json as { n: number }).n) ?? 0) + 1);
    expect(perEvent.size).toBe(20);
    expect([...perEvent.values()].every((c) => c >= 1 && c <= 3)).toBe(true);
    expect(receiver.requests.length).toBeGreaterThan(20);
  });

  it('keeps at most `concurrency` deliveries of a client in flight with the concurrency fault (one by default)', async () => {
    let inFlight = 0;
    let most = 0;
    receiver.answer = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight--;
      return { status: 200 };
    };
    for (let n = 1; n <= 12; n++) queue.enqueue(event(n));
    await queue.idle();
    expect(most).toBe(1);

    faults = Faults.parse({ deliveries: { concurrency: 4 } });
    most = 0;
    for (let n = 13; n <= 24; n++) queue.enqueue(event(n));
    await queue.idle();
    expect(most).toBe(4);
    expect(receiver.requests).toHaveLength(24);
    expect(queue.list().every((d) => d.state === 'delivered')).toBe(true);
  });

  it('shuffles the order with the reorder fault, losing nothing', async () => {
    faults = Faults.parse({ deliveries: { reorder: true } });
    // Hold the receiver so the queue fills up before the first answer.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    receiver.answer = async () => {
      await gate;
      return { status: 200 };
    };
    for (let n = 1; n <= 30; n++) queue.enqueue(event(n));
    release();
    await queue.idle();
    const order = receiver.requests.map((r) => (r.json as { n: number }).n);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(order).not.toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});
