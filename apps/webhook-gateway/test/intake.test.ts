// Hand-built deliveries over real sockets to a gateway on each kind of database: every event type
// stored once, duplicates, authentication, drift, and every kind of bad input with its answer.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLABES,
  TOKENS,
  bearer,
  cashEvent,
  cashHeaders,
  cepBody,
  databaseKinds,
  envelope,
  moneyInEnvelope,
  post,
  refundBody,
  reportBody,
  startTestGateway,
  statusUpdateBody,
  type TestGateway,
} from './helpers.ts';

describe.each(databaseKinds)('gateway intake on $name', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
    await t.gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  const core = (path: string) => `${t.url}/webhooks/core/${path}`;

  it('stores every core event type once and answers as the platform expects', async () => {
    const deliveries = [
      { path: 'money-in', body: moneyInEnvelope(), status: 201, type: 'MONEY_IN' },
      {
        path: 'status-update',
        body: envelope('STATUS_UPDATE', statusUpdateBody()),
        status: 200,
        type: 'STATUS_UPDATE',
      },
      { path: 'cep', body: envelope('CEP', cepBody()), status: 200, type: 'CEP' },
      { path: 'refund', body: envelope('REFUND', refundBody()), status: 200, type: 'REFUND' },
    ];
    for (const d of deliveries) {
      const raw = JSON.stringify(d.body);
      const answer = await post(core(d.path), raw, bearer());
      expect(answer.status, d.type).toBe(d.status);
      expect(answer.json).toMatchObject({ received: true, duplicate: false });
      const stored = await t.gateway.events.get(answer.json.seq as string);
      expect(stored).toMatchObject({
        source: 'core',
        eventType: d.type,
        idMsg: d.body.id_msg,
        deliveries: 1,
        drift: [],
      });
      expect(Buffer.from(stored!.rawBody).toString('utf8')).toBe(raw);
      expect(stored!.headers.authorization).toBeUndefined();
      expect(stored!.headers['x-paykit-auth']).toBe(
        d.type === 'MONEY_IN' ? 'bearer token 1 of 2' : 'bearer token 1 of 1',
      );
    }
    // REPORT: flat, registered NO_AUTH here.
    const report = reportBody();
    const answer = await post(core('report'), JSON.stringify(report), { 'content-type': 'application/json' });
    expect(answer.status).toBe(200);
    const stored = await t.gateway.events.get(answer.json.seq as string);
    expect(stored).toMatchObject({
      eventType: 'REPORT',
      dedupeKey: `core:report:${report.client_id}:${report.file_name}`,
      headers: { 'x-paykit-auth': 'no auth (NO_AUTH)' },
    });
  });

  it('answers a repeat with the first answer and stores it once, however many arrive at once', async () => {
    const delivery = JSON.stringify(envelope('STATUS_UPDATE', statusUpdateBody()));
    const first = await post(core('status-update'), delivery, bearer());
    const again = await post(core('status-update'), delivery, bearer());
    expect(again).toEqual({ status: 200, json: { received: true, duplicate: true, seq: first.json.seq } });

    const burst = JSON.stringify(moneyInEnvelope());
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(core('money-in'), burst, bearer())));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => a.json.seq)).size).toBe(1);
    expect(answers.filter((a) => a.json.duplicate === false)).toHaveLength(1);
    const idMsg = (JSON.parse(burst) as { id_msg: string }).id_msg;
    const stored = await t.gateway.events.getByDedupeKey(`core:MONEY_IN:${idMsg}`);
    expect(stored?.deliveries).toBe(20);
    const { rows } = await t.db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM webhook_events WHERE id_msg = $1',
      [idMsg],
    );
    expect(rows[0]!.n).toBe('1');
  });

  it('refuses a missing, malformed or unknown bearer token with 401 and stores nothing', async () => {
    const body = JSON.stringify(moneyInEnvelope());
    const cases: Record<string, string>[] = [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', authorization: TOKENS.coreWebhookToken },
      bearer('whk_wrong_token_000000000000000000000000000'),
      bearer(TOKENS.coreWebhookToken.slice(0, -1)),
      bearer(TOKENS.previousCoreWebhookToken), // accepted for MONEY_IN only (rotation), not for CEP
    ];
    for (const headers of cases.slice(0, 4)) {
      const answer = await post(core('money-in'), body, headers);
      expect(answer.status).toBe(401);
      expect(answer.json.error).toBe('unauthorized');
    }
    expect((await post(core('cep'), JSON.stringify(envelope('CEP', cepBody())), cases[4]!)).status).toBe(401);
    const idMsg = (JSON.parse(body) as { id_msg: string }).id_msg;
    expect(await t.gateway.events.getByDedupeKey(`core:MONEY_IN:${idMsg}`)).toBeUndefined();
    // The previous token still works where a rotation is under way.
    const rotated = await post(core('money-in'), body, bearer(TOKENS.previousCoreWebhookToken));
    expect(rotated.status).toBe(201);
    expect((await t.gateway.events.get(rotated.json.seq as string))?.headers['x-paykit-auth']).toBe(
      'bearer token 2 of 2',
    );
  });

  it('verifies cash deliveries over the raw bytes, answers the activation, dedupes by operation and event', async () => {
    const activation = JSON.stringify({ event: 'webhook.activation', processed_at: new Date().toISOString() });
    const activated = await post(`${t.url}/webhooks/cash`, activation, cashHeaders(activation));
    expect(activated).toMatchObject({ status: 200, json: { status: 'active' } });

    // Bytes as sent (spacing, key order, non-ASCII) are what is signed and stored.
    const raw = `{ "event":"webhook.paid.success","operation_id":${Math.floor(Math.random() * 1e9)},"external_user_id":"usuario-ñ","type":"cash_in","amount":250,"reference":"12345678901234567890","status":"paid","processed_at":"${new Date().toISOString()}" }`;
    const paid = await post(`${t.url}/webhooks/cash`, raw, cashHeaders(raw));
    expect(paid).toMatchObject({ status: 200, json: { status: 'received', message: 'Stored.' } });
    const repeat = await post(`${t.url}/webhooks/cash`, raw, cashHeaders(raw));
    expect(repeat).toMatchObject({ status: 200, json: { message: 'Already stored.' } });
    const operationId = (JSON.parse(raw) as { operation_id: number }).operation_id;
    const stored = await t.gateway.events.getByDedupeKey(`cash:${operationId}:webhook.paid.success`);
    expect(stored).toMatchObject({ source: 'cash', operationId: String(operationId), deliveries: 2 });
    expect(Buffer.from(stored!.rawBody).toString('utf8')).toBe(raw);

    const tampered = raw.replace('"amount":250', '"amount":950');
    expect((await post(`${t.url}/webhooks/cash`, tampered, cashHeaders(raw))).status).toBe(401);
    const other = JSON.stringify(cashEvent());
    expect((await post(`${t.url}/webhooks/cash`, other, cashHeaders(other, { secret: 'f'.repeat(64) }))).status).toBe(
      401,
    );
    const stale = await post(
      `${t.url}/webhooks/cash`,
      other,
      cashHeaders(other, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
    );
    expect(stale.status).toBe(401);
    expect(String(stale.json.message)).toMatch(/away from now/);
    const unsigned = await post(`${t.url}/webhooks/cash`, other, { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(401);
  });

  it('stores a drifted delivery with its differences, counts it, and still answers 2xx', async () => {
    const delivery = moneyInEnvelope(
      { registered_at: 'yesterday', surprise: { nested: true } },
      { extra_envelope_field: 1 },
    );
    const answer = await post(core('money-in'), JSON.stringify(delivery), bearer());
    expect(answer.status).toBe(201);
    const stored = await t.gateway.events.get(answer.json.seq as string);
    const paths = stored!.drift.map((d) => d.path).sort();
    expect(paths).toEqual(['body.registered_at', 'body.surprise', 'extra_envelope_field']);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_drift_total\{source="core",type="MONEY_IN"\} [1-9]/);
  });

  it('answers each bad input with its documented 4xx and a short JSON error, never 5xx', async () => {
    const cases: {
      name: string;
      path: string;
      body: string | Uint8Array;
      headers: Record<string, string>;
      status: number;
      error: string;
    }[] = [
      {
        name: 'not JSON',
        path: 'status-update',
        body: '{"id_msg": ',
        headers: bearer(),
        status: 400,
        error: 'invalid_json',
      },
      {
        name: 'invalid UTF-8',
        path: 'status-update',
        body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        headers: bearer(),
        status: 400,
        error: 'invalid_utf8',
      },
      { name: 'empty body', path: 'cep', body: '', headers: bearer(), status: 400, error: 'invalid_json' },
      { name: 'an array', path: 'cep', body: '[1,2]', headers: bearer(), status: 422, error: 'not_an_event' },
      { name: 'a string', path: 'cep', body: '"CEP"', headers: bearer(), status: 422, error: 'not_an_event' },
      {
        name: 'wrong msg_name',
        path: 'cep',
        body: JSON.stringify(envelope('REFUND', refundBody())),
        headers: bearer(),
        status: 422,
        error: 'wrong_event',
      },
      {
        name: 'envelope to REPORT',
        path: 'report',
        body: JSON.stringify(envelope('CEP', cepBody())),
        headers: { 'content-type': 'application/json' },
        status: 422,
        error: 'wrong_event',
      },
      {
        name: 'wrong content type',
        path: 'cep',
        body: JSON.stringify(envelope('CEP', cepBody())),
        headers: { ...bearer(), 'content-type': 'text/plain' },
        status: 415,
        error: 'unsupported_media_type',
      },
      {
        name: 'form content type',
        path: 'cep',
        body: 'a=1',
        headers: { ...bearer(), 'content-type': 'application/x-www-form-urlencoded' },
        status: 415,
        error: 'unsupported_media_type',
      },
      {
        name: 'nested past what jsonb holds',
        path: 'cep',
        body: `${'['.repeat(1500)}${']'.repeat(1500)}`,
        headers: bearer(),
        status: 422,
        error: 'not_an_event',
      },
      {
        name: 'an event nested past what jsonb holds',
        path: 'status-update',
        body: JSON.stringify({
          ...envelope('STATUS_UPDATE', statusUpdateBody()),
          deep: JSON.parse(`${'['.repeat(1500)}${']'.repeat(1500)}`) as unknown,
        }),
        headers: bearer(),
        status: 400,
        error: 'unstorable',
      },
      {
        name: 'oversize',
        path: 'cep',
        body: JSON.stringify({ ...envelope('CEP', cepBody()), pad: 'x'.repeat(1024 * 1024) }),
        headers: bearer(),
        status: 413,
        error: 'body_too_large',
      },
    ];
    for (const c of cases) {
      const answer = await post(core(c.path), c.body, c.headers);
      expect({ name: c.name, status: answer.status, error: answer.json.error }).toEqual({
        name: c.name,
        status: c.status,
        error: c.error,
      });
      expect(typeof answer.json.message).toBe('string');
    }
    const unknown = await post(`${t.url}/webhooks/core/nope`, '{}', bearer());
    expect(unknown).toMatchObject({ status: 404, json: { error: 'not_found' } });
  });

  it('serves health, readiness and Prometheus metrics', async () => {
    expect(await (await fetch(`${t.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    const metrics = await fetch(`${t.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    for (const name of [
      'gateway_events_total',
      'gateway_duplicates_total',
      'gateway_money_in_decisions_total',
      'gateway_answer_seconds_bucket',
      'gateway_store_commit_seconds_bucket',
      'gateway_refused_total',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/gateway_duplicates_total\{source="core",type="MONEY_IN"\} 19/);
  });

  it('keeps secrets out of its logs', async () => {
    await post(
      core('money-in'),
      JSON.stringify(moneyInEnvelope()),
      bearer('whk_attacker_guess_000000000000000000000000'),
    );
    const logs = t.logs.join('');
    expect(logs).toContain('delivery stored');
    for (const secret of Object.values(TOKENS)) expect(logs).not.toContain(secret);
    expect(logs).not.toContain('whk_attacker_guess');
  });

  it('lists, shows and replays stored events through the admin API', async () => {
    const admin = { authorization: `Bearer ${TOKENS.adminToken}` };
    const delivery = moneyInEnvelope({ beneficiary_account: CLABES.juan });
    const sent = JSON.stringify(delivery);
    const answer = await post(core('money-in'), sent, bearer());
    // An account the store does not know: stored and held (202), never refused by default.
    expect(answer).toMatchObject({ status: 202, json: { received: true } });
    const list = (await (
      await fetch(`${t.url}/admin/events?eventType=MONEY_IN&outcome=stored&limit=5`, { headers: admin })
    ).json()) as { events: { seq: string; idMsg: string }[] };
    const event = list.events.find((e) => e.idMsg === delivery.id_msg)!;
    expect(event).toBeDefined();
    // Ops learn the account and replay: today it would be accepted; the event keeps its decision.
    await t.gateway.accounts.upsert({ clabe: CLABES.juan, ownerId: null, status: 'ACTIVE', creditLimit: null });
    const replay = (await (
      await fetch(`${t.url}/admin/events/${event.seq}/replay`, { method: 'POST', headers: admin })
    ).json()) as Record<string, unknown>;
    expect(replay).toMatchObject({ seq: event.seq, outcome: 'accepted', answerStatus: 201, sameAsStored: false });
    const shown = (await (await fetch(`${t.url}/admin/events/${event.seq}`, { headers: admin })).json()) as {
      event: { outcome: string };
      replays: unknown[];
      rawBody: string;
    };
    expect(shown.event.outcome).toBe('stored');
    expect(shown.replays).toHaveLength(1);
    // The exact bytes received, for a redelivery byte for byte.
    expect(Buffer.from(shown.rawBody, 'base64').toString('utf8')).toBe(sent);

    expect((await fetch(`${t.url}/admin/events/999999999`, { headers: admin })).status).toBe(404);
    expect(
      (
        await fetch(`${t.url}/admin/events`, {
          headers: { authorization: 'Bearer wrong-admin-token-000000000000000000' },
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${t.url}/admin/events`)).status).toBe(401);
  });
});

describe.each(databaseKinds)('gateway without an admin token on $name', (kind) => {
  it('keeps the admin API off and says how to turn it on', async () => {
    const t = await startTestGateway(kind, { env: { GATEWAY_ADMIN_TOKEN: '' } });
    try {
      const answer = await fetch(`${t.url}/admin/events/${randomUUID()}`);
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ error: 'admin_disabled' });
    } finally {
      await t.close();
    }
  });
});
