// Baseline 1, the floor any gateway must stand on: node:http, read the body, JSON.parse, one
// INSERT per request through a pg Pool, answer 201 `{}`. No validation, no deduplication beyond the
// primary key, no decision: the least work that still stores a delivery before answering.
import http from 'node:http';
import pg from 'pg';
import {
  BODY_LIMIT_BYTES,
  createEventsTableOrExit,
  INSERT_EVENT,
  MONEY_IN_PATH,
  readReceiverEnvOrExit,
  serveOrExit,
} from './receiver-env.ts';

const env = readReceiverEnvOrExit();
const expectedAuthorization = `Bearer ${env.token}`;
const pool = new pg.Pool({ connectionString: env.databaseUrl });
// An idle client losing its connection must not crash the process; the next query reconnects.
pool.on('error', (error) => console.error(`database connection lost: ${error.message}`));
await createEventsTableOrExit(pool, env.databaseUrl);

function answer(res: http.ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== MONEY_IN_PATH)
    return answer(res, 404, { error: `no route for ${req.method} ${req.url}` });
  if (req.headers.authorization !== expectedAuthorization)
    return answer(res, 401, { error: 'missing or wrong bearer token' });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) {
      answer(res, 413, { error: `body over ${BODY_LIMIT_BYTES} bytes` });
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let idMsg: unknown;
    try {
      idMsg = (JSON.parse(raw) as { id_msg?: unknown } | null)?.id_msg;
    } catch {
      return answer(res, 400, { error: 'body is not JSON' });
    }
    if (typeof idMsg !== 'string') return answer(res, 400, { error: 'id_msg is missing' });
    pool.query(INSERT_EVENT, [idMsg, raw]).then(
      () => answer(res, 201, {}),
      (error: Error) => {
        console.error(`insert failed: ${error.message}`);
        answer(res, 503, { error: 'could not store the event, deliver again' });
      },
    );
  });
});

serveOrExit(server, env, pool);
