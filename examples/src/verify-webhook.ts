// A webhook receiver that believes only what it can verify. It registers a MONEY_IN webhook for
// this client at its own address, checks each delivery's bearer token against the token it
// registered (verifyCoreWebhook: constant-time, two tokens during a rotation), reads the body with
// parseCoreEvent, and answers 200 once it has the event; anything else gets 401 and is not read.
// Against the sandbox (SANDBOX_CREDIT_CLABE set) it asks for an incoming SPEI credit to that CLABE,
// so that a delivery comes. It stops after WEBHOOK_DELIVERIES verified deliveries (default 1), or
// fails after WEBHOOK_WAIT_SECONDS (default 30), and deletes the configuration it registered.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCoreClient, parseCoreEvent, verifyCoreWebhook, WebhookVerificationError } from '@paykit/core-client';

const missing = ['CORE_CLIENT_ID', 'CORE_API_KEY'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`Set ${missing.join(', ')} (the sandbox's are in GET /_sandbox/seed; see examples/README.md).`);
  process.exit(2);
}
const sandboxUrl = process.env.PAYKIT_SANDBOX_URL ?? 'http://127.0.0.1:4010';
const wanted = Number(process.env.WEBHOOK_DELIVERIES ?? '1');
const waitSeconds = Number(process.env.WEBHOOK_WAIT_SECONDS ?? '30');
if (!Number.isInteger(wanted) || wanted < 1 || !(waitSeconds > 0)) {
  console.error(
    'WEBHOOK_DELIVERIES is a whole number of deliveries (1 or more), WEBHOOK_WAIT_SECONDS a number of seconds.',
  );
  process.exit(2);
}
const MAX_BODY_BYTES = 1024 * 1024;

const core = createCoreClient({
  environment: 'sandbox',
  baseUrl: `${sandboxUrl}/core`,
  clientId: process.env.CORE_CLIENT_ID!,
  apiKey: process.env.CORE_API_KEY!,
  clientSecret: process.env.CORE_CLIENT_SECRET,
});

/** The body as bytes, refused past MAX_BODY_BYTES. */
async function bodyOf(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

// The token the webhook is registered with: a service keeps it with its secrets, never in code.
let accepted: string[] = [];
let verified = 0;
let done: () => void = () => {};
const finished = new Promise<void>((resolve) => (done = resolve));

const server = createServer(async (request, response) => {
  try {
    if (request.method !== 'POST' || request.url !== '/webhooks/core/money-in') {
      response.writeHead(404).end();
      return;
    }
    // Before the body is read: a stranger gets nothing. Nothing is accepted before registration.
    if (accepted.length === 0) throw new WebhookVerificationError('mismatch', 'no webhook registered yet');
    verifyCoreWebhook(request.headers, accepted);
    const body = await bodyOf(request);
    if (body === undefined) {
      response.writeHead(413).end();
      return;
    }
    const delivered = parseCoreEvent(body);
    if (delivered.kind === 'MONEY_IN') {
      const { id_msg, body: credit } = delivered.event;
      console.log(
        `verified MONEY_IN ${id_msg}: ${credit.sub_category} ${credit.amount} MXN, transaction ${credit.id}, tracking key ${credit.tracking_key}`,
      );
    } else {
      console.log(`verified a ${delivered.kind} delivery`);
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    verified += 1;
    if (verified >= wanted) done();
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      console.log(`refused a delivery (401): ${error.reason}`);
      response.writeHead(401).end();
      return;
    }
    console.error(`a delivery could not be read: ${error instanceof Error ? error.message : String(error)}`);
    response.writeHead(400).end();
  }
});
await new Promise<void>((resolve) => server.listen(Number(process.env.WEBHOOK_PORT ?? '0'), '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/core/money-in`;
console.log(`listening on ${url}`);

let webhookId: string | undefined;
let failed = false;
const timer = setTimeout(() => {
  console.error(
    `${verified} of ${wanted} verified deliveries within ${waitSeconds} s: can the platform reach ${url}, and does the webhook exist (GET webhooks)?`,
  );
  failed = true;
  done();
}, waitSeconds * 1000);
try {
  const registered = await core.webhooks.register({ webhookType: 'MONEY_IN', url });
  accepted = [registered.token];
  webhookId = registered.webhook.id;
  console.log(`registered MONEY_IN webhook ${webhookId}`);
  const clabe = process.env.SANDBOX_CREDIT_CLABE;
  if (clabe) {
    // The sandbox's control API plays the sender's bank: an external SPEI credit arrives.
    const answer = await fetch(`${sandboxUrl}/_sandbox/core/incoming-spei`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ beneficiaryClabe: clabe, amount: '250.00' }),
    });
    if (!answer.ok) throw new Error(`the sandbox refused the incoming credit: ${answer.status} ${await answer.text()}`);
  }
  await finished;
} catch (error) {
  console.error(`stopped: ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
} finally {
  clearTimeout(timer);
  if (webhookId !== undefined) {
    await core.webhooks.delete(webhookId);
    console.log(`deleted webhook ${webhookId}`);
  }
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
if (failed) process.exitCode = 1;
