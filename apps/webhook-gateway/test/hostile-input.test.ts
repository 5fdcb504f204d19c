// What the reliability suite's hostile-input and authentication scenarios found, kept found: an
// admin path the router decodes must still need the admin token; a repeated credential header
// with another value is refused, whichever comes first; a delivery with no body and no content
// type is 415, not 503; an unknown route is 404 whatever its body; the admin API answers a
// value the store cannot take, or a query that breaks the contract, with 400 in the gateway's own
// shape; and slow clients (slowloris) are answered 408 and closed by the server's timeouts.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TOKENS,
  bearer,
  cashEvent,
  cashHeaders,
  databaseKinds,
  envelope,
  post,
  startTestGateway,
  statusUpdateBody,
  type TestGateway,
} from './helpers.ts';

/** One raw HTTP/1.1 exchange (node's fetch cannot repeat a header or leave the content type out). */
function rawExchange(
  port: number,
  head: string,
  body = '',
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 5 s')), 5_000);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
      const text = received.slice(received.indexOf('\r\n\r\n') + 4);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // A bodiless answer: the status says it all.
      }
      resolve({ status, json });
    });
    // write, not end: the server closes the connection once it has answered (Connection: close).
    socket.write(
      `${head}Host: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

describe.each(databaseKinds)('gateway hostile input on $name', (kind) => {
  let t: TestGateway;
  let port: number;
  const admin = { authorization: `Bearer ${TOKENS.adminToken}` };
  beforeAll(async () => {
    t = await startTestGateway(kind);
    port = t.gateway.port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('needs the admin token on an admin path the router decodes (/%61dmin/events is /admin/events)', async () => {
    for (const path of ['/%61dmin/events', '/admin/%65vents/1', '/adm%69n/events/1/replay']) {
      const method = path.endsWith('replay') ? 'POST' : 'GET';
      expect(
        (
          await fetch(`${t.url}${path}`, {
            method,
            headers: { authorization: 'Bearer wrong-admin-token-000000000000000000' },
          })
        ).status,
        path,
      ).toBe(401);
      expect((await fetch(`${t.url}${path}`, { method })).status, path).toBe(401);
    }
    expect((await fetch(`${t.url}/%61dmin/events?limit=1`, { headers: admin })).status).toBe(200);
  });

  it('refuses a credential header repeated with another value, whichever comes first; the same value twice is one credential', async () => {
    const raw = JSON.stringify(envelope('STATUS_UPDATE', statusUpdateBody()));
    const wrong = 'Bearer wrong-token-000000000000000000000000';
    const route = 'POST /webhooks/core/status-update HTTP/1.1\r\nContent-Type: application/json\r\n';
    for (const pair of [
      [`Bearer ${TOKENS.coreWebhookToken}`, wrong],
      [wrong, `Bearer ${TOKENS.coreWebhookToken}`],
    ]) {
      const answer = await rawExchange(port, `${route}Authorization: ${pair[0]}\r\nAuthorization: ${pair[1]}\r\n`, raw);
      expect(answer).toMatchObject({ status: 401, json: { error: 'unauthorized' } });
    }
    const same = await rawExchange(
      port,
      `${route}Authorization: Bearer ${TOKENS.coreWebhookToken}\r\nAuthorization: Bearer ${TOKENS.coreWebhookToken}\r\n`,
      raw,
    );
    expect(same.status).toBe(200);

    const cash = JSON.stringify(cashEvent());
    const signed = cashHeaders(cash);
    const signature = signed['x-webhook-signature']!;
    const other = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    const cashRoute = `POST /webhooks/cash HTTP/1.1\r\nContent-Type: application/json\r\nX-Webhook-Timestamp: ${signed['x-webhook-timestamp']}\r\n`;
    expect(
      (
        await rawExchange(
          port,
          `${cashRoute}X-Webhook-Signature: ${signature}\r\nX-Webhook-Signature: ${other}\r\n`,
          cash,
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await rawExchange(
          port,
          `${cashRoute}X-Webhook-Signature: ${signature}\r\nX-Webhook-Signature: ${signature}\r\n`,
          cash,
        )
      ).status,
    ).toBe(200);

    const adminRoute = `GET /admin/events?limit=1 HTTP/1.1\r\nAuthorization: Bearer ${TOKENS.adminToken}\r\n`;
    expect((await rawExchange(port, `${adminRoute}Authorization: ${wrong}\r\n`)).status).toBe(401);
  });

  it('answers a delivery with no body and no content type 415, not 503', async () => {
    const core = await rawExchange(
      port,
      `POST /webhooks/core/status-update HTTP/1.1\r\nAuthorization: Bearer ${TOKENS.coreWebhookToken}\r\n`,
    );
    expect(core).toMatchObject({ status: 415, json: { error: 'unsupported_media_type' } });
    const signed = cashHeaders('');
    const cash = await rawExchange(
      port,
      `POST /webhooks/cash HTTP/1.1\r\nX-Webhook-Signature: ${signed['x-webhook-signature']}\r\nX-Webhook-Timestamp: ${signed['x-webhook-timestamp']}\r\n`,
    );
    expect(cash).toMatchObject({ status: 415, json: { error: 'unsupported_media_type' } });
  });

  it('answers an unknown route 404 whatever its body (not 400 for bad JSON, not 413 for a large one)', async () => {
    expect(await post(`${t.url}/webhooks/core/payout`, '[1,', bearer())).toMatchObject({
      status: 404,
      json: { error: 'not_found' },
    });
    expect(
      await post(`${t.url}/healthz`, JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) }), bearer()),
    ).toMatchObject({ status: 404, json: { error: 'not_found' } });
  });

  it('answers the admin API 400 in its own shape for what the store cannot take or the contract refuses', async () => {
    for (const path of [
      '/admin/events?before=99999999999999999999999',
      '/admin/events/99999999999999999999999',
      '/admin/events?eventType=%00',
      '/admin/events?limit=abc',
      '/admin/events/abc',
    ]) {
      const answer = await fetch(`${t.url}${path}`, { headers: admin });
      const body = (await answer.json()) as Record<string, unknown>;
      expect({ path, status: answer.status, error: body.error }).toEqual({ path, status: 400, error: 'bad_request' });
      expect(typeof body.message).toBe('string');
    }
  });
});

describe.each(databaseKinds)('gateway slow clients on $name', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, {
      env: { GATEWAY_HEADERS_TIMEOUT_MS: '1000', GATEWAY_REQUEST_TIMEOUT_MS: '1500' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A client that sends `prefix`, then one byte of `trickle` every 100 ms; resolves when the server closes it. */
  const slowClient = (prefix: string, trickle: string) =>
    new Promise<{ ms: number; answer: string }>((resolve) => {
      const started = performance.now();
      const socket = net.connect(t.gateway.port, '127.0.0.1');
      let answer = '';
      let timer: NodeJS.Timeout | undefined;
      socket.once('connect', () => {
        socket.write(prefix);
        timer = setInterval(() => socket.writable && socket.write(trickle), 100);
      });
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => socket.destroy());
      socket.once('close', () => {
        clearInterval(timer);
        resolve({ ms: performance.now() - started, answer });
      });
      // Bounded even if the server never closes it.
      setTimeout(() => socket.destroy(), 10_000).unref();
    });

  it('answers 408 and closes a client trickling its headers, and one trickling its body, within the timeouts', async () => {
    const headers = slowClient('POST /webhooks/core/status-update HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X');
    const body = slowClient(
      `POST /webhooks/core/status-update HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.coreWebhookToken}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      ' ',
    );
    // Meanwhile a delivery is answered as usual.
    const delivery = await post(
      `${t.url}/webhooks/core/status-update`,
      JSON.stringify(envelope('STATUS_UPDATE', statusUpdateBody())),
      bearer(),
    );
    expect(delivery.status).toBe(200);
    const [slowHeaders, slowBody] = await Promise.all([headers, body]);
    for (const slow of [slowHeaders, slowBody]) expect(slow.answer).toMatch(/^HTTP\/1\.1 408/);
    // Node checks every half headers timeout here (500 ms): closed within a timeout plus that, plus scheduling.
    expect(slowHeaders.ms).toBeGreaterThanOrEqual(900);
    expect(slowHeaders.ms).toBeLessThan(1000 + 1500);
    expect(slowBody.ms).toBeGreaterThanOrEqual(1400);
    expect(slowBody.ms).toBeLessThan(1500 + 1500);
  });
});
