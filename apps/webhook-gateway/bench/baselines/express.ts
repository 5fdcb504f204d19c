// Baseline 2, the typical hand-written receiver: Express 5, body-parser's JSON middleware, a
// bearer check by string compare, one INSERT per request through a pg Pool, 201 `{}`.
import http from 'node:http';
import bodyParser from 'body-parser';
import express, { type NextFunction, type Request, type Response } from 'express';
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
const pool = new pg.Pool({ connectionString: env.databaseUrl });
// An idle client losing its connection must not crash the process; the next query reconnects.
pool.on('error', (error) => console.error(`database connection lost: ${error.message}`));
await createEventsTableOrExit(pool, env.databaseUrl);

const app = express();

function requireToken(req: Request, res: Response, next: NextFunction): void {
  if (req.headers.authorization !== `Bearer ${env.token}`) {
    res.status(401).json({ error: 'missing or wrong bearer token' });
    return;
  }
  next();
}

app.post(
  MONEY_IN_PATH,
  requireToken,
  bodyParser.json({ limit: BODY_LIMIT_BYTES }),
  async (req: Request, res: Response) => {
    const event = req.body as { id_msg?: unknown } | undefined;
    if (typeof event?.id_msg !== 'string') {
      res.status(400).json({ error: 'id_msg is missing' });
      return;
    }
    try {
      await pool.query(INSERT_EVENT, [event.id_msg, event]);
    } catch (error) {
      console.error(`insert failed: ${(error as Error).message}`);
      res.status(503).json({ error: 'could not store the event, deliver again' });
      return;
    }
    res.status(201).json({});
  },
);

// body-parser's errors carry the status to answer (400 bad JSON, 413 too large, 415 charset).
app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
  const status = error.status !== undefined && error.status >= 400 && error.status < 500 ? error.status : 500;
  res.status(status).json({ error: status === 500 ? 'internal error' : error.message });
});

const server = http.createServer(app);
serveOrExit(server, env, pool);
