// /metrics behind METRICS_TOKEN: without the bearer token (or with another) 401 and nothing of the
// registry; with it the Prometheus text. Without METRICS_TOKEN it is open (the README says so).
// The probes stay open either way, and /readyz says which kind of store only.
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { describe, expect, it } from 'vitest';
import { databaseKinds, gatewayForSuite } from './helpers.ts';

const METRICS_TOKEN = TEST_SECRETS.metricsToken;

describe.each(databaseKinds)('/metrics with METRICS_TOKEN ($name)', (kind) => {
  const gateway = gatewayForSuite(kind, { METRICS_TOKEN });

  it('answers 401 without the bearer token, and the metrics with it', async () => {
    const { url } = gateway();
    for (const authorization of [
      undefined,
      `Bearer ${METRICS_TOKEN.slice(1)}`,
      `Basic ${METRICS_TOKEN}`,
      `Bearer ${METRICS_TOKEN} ${METRICS_TOKEN}`,
    ]) {
      const refused = await fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(refused.status, authorization).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      const body = (await refused.json()) as { error: string; message: string };
      expect(body).toMatchObject({ error: 'unauthorized', message: 'Send Authorization: Bearer <METRICS_TOKEN>.' });
      expect(JSON.stringify(body)).not.toContain('gateway_');
    }
    const scraped = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('gateway_events_total');
  });

  it('keeps the probes open, /readyz naming the kind of store only', async () => {
    const { url } = gateway();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', store: kind.name });
  });
});
