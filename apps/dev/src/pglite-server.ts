// PGlite over TCP for processes that speak the PostgreSQL protocol (pg pools in the gateway and the
// worker). PGlite is one backend, so connections take turns: a connection holds the backend from
// its first message until the backend is idle again (ReadyForQuery 'I'), so an extended-protocol
// exchange (Parse, Bind, Execute, Sync) or a whole transaction is never interleaved with another
// connection's messages. @electric-sql/pglite-socket's multiplexer queues single messages instead,
// and two pg pools on it fail with "unnamed prepared statement does not exist" (apps/dev/README.md).
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/** A first-come first-served lock on the one backend. */
class Turns {
  #tail: Promise<void> = Promise.resolve();
  take(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const turn = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => held);
    return turn;
  }
}

/**
 * How long a client should allow for connecting: a new connection's start-up waits for its turn
 * at the one backend behind every exchange queued before it, so the 2 s a network connect is given
 * is too short on a busy machine (two pools of five on two loaded cores waited longer).
 */
export const PGLITE_CONNECT_TIMEOUT_MS = 30_000;

export interface PgliteServer {
  readonly port: number;
  /** Connections open now. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Serves `db` on 127.0.0.1:`port` (0: any free port) until close(); `db` stays the caller's to close. */
export async function servePglite(db: PGlite, port: number): Promise<PgliteServer> {
  const turns = new Turns();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    void serveConnection(db, turns, socket).finally(() => {
      sockets.delete(socket);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads framed messages off `socket` and runs them on the backend, one turn per idle-to-idle exchange. */
async function serveConnection(db: PGlite, turns: Turns, socket: Socket): Promise<void> {
  let release: (() => void) | undefined;
  let started = false;
  let buffer = Buffer.alloc(0);
  const pending: Buffer[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  socket.on('data', (chunk) => {
    pending.push(chunk);
    wake?.();
  });
  socket.on('close', () => {
    closed = true;
    wake?.();
  });
  socket.on('error', () => {});
  try {
    for (;;) {
      if (pending.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      if (pending.length > 0) buffer = Buffer.concat([buffer, ...pending.splice(0)]);
      for (;;) {
        const message = nextMessage(buffer, started);
        if (message === undefined) break;
        buffer = buffer.subarray(message.length);
        if (!started) {
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST) {
            socket.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) return;
          if (code !== PROTOCOL_3) return;
          started = true;
        } else if (message[0] === 0x58 /* X: Terminate */) {
          return;
        }
        release ??= await turns.take();
        if (closed) return;
        const output: Uint8Array[] = [];
        await db.runExclusive(() =>
          db.execProtocolRawStream(new Uint8Array(message), {
            onRawData: (data) => {
              output.push(data);
              if (socket.writable) socket.write(data);
            },
          }),
        );
        // The backend is idle again: the next connection may have it.
        if (readyStatus(Buffer.concat(output)) === 'I') {
          release();
          release = undefined;
        }
      }
      if (closed) return;
    }
  } finally {
    if (release !== undefined) {
      // A connection gone inside a transaction leaves nothing half-done for the next one.
      if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => {});
      release();
    }
  }
}

/** The next whole message at the start of `buffer` (a startup-phase message has no type byte). */
function nextMessage(buffer: Buffer, started: boolean): Buffer | undefined {
  if (!started) {
    if (buffer.length < 4) return undefined;
    const length = buffer.readInt32BE(0);
    return buffer.length >= length ? buffer.subarray(0, length) : undefined;
  }
  if (buffer.length < 5) return undefined;
  const length = 1 + buffer.readInt32BE(1);
  return buffer.length >= length ? buffer.subarray(0, length) : undefined;
}

/** The status of the last ReadyForQuery ('Z') in a backend's output, if it holds one. */
function readyStatus(output: Buffer): string | undefined {
  let status: string | undefined;
  for (let at = 0; at + 5 <= output.length; ) {
    const length = output.readInt32BE(at + 1);
    if (output[at] === 0x5a && length === 5 && at + 6 <= output.length) status = String.fromCharCode(output[at + 5]!);
    at += 1 + length;
  }
  return status;
}
