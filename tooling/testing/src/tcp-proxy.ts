// A TCP proxy on loopback for outage tests: real sockets between a client and a server (the
// gateway and PostgreSQL, say) that a test can cut, freeze, restore or slow down, to see how the
// client behaves when its server disappears, stops answering or crawls.
import net from 'node:net';

export interface TcpProxy {
  /** The proxy's own port on 127.0.0.1. */
  port: number;
  /** Drops every open connection and refuses new ones (closed at once) until restore(). */
  cut(): void;
  /** Passes connections through again. */
  restore(): void;
  /**
   * Stops forwarding in both directions, on open connections and on new ones, without closing or
   * resetting any socket: a connection frozen as when a firewall or NAT silently drops its state.
   * Nothing arrives, nothing fails; only the client's own deadlines can end its waits.
   */
  freeze(): void;
  /**
   * Forwards again. `frozen: 'resume'` (default) passes on what the frozen connections held, as a
   * network that comes back; `'lost'` leaves them frozen for good (their state is gone, as after a
   * NAT reset) while new connections pass.
   */
  thaw(options?: { frozen?: 'resume' | 'lost' }): void;
  /** Holds every chunk from the server for `ms` before passing it on (0: none). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
  lost: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let cut = false;
  let frozen = false;
  let latencyMs = 0;
  const sockets = new Set<net.Socket>();
  const pairs = new Set<Pair>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const connectUpstream = (pair: Pair) => {
    const { client } = pair;
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    track(upstream);
    // A frozen pair passes nothing on, its end included: the other side must not learn of it.
    client.on('close', () => !pair.lost && upstream.destroy());
    upstream.on('close', () => !pair.lost && client.destroy());
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (latencyMs === 0) client.write(chunk);
      else setTimeout(() => client.writable && client.write(chunk), latencyMs);
    });
  };
  const server = net.createServer((client) => {
    track(client);
    if (cut) {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: undefined, lost: false };
    pairs.add(pair);
    client.once('close', () => pairs.delete(pair));
    // Accepted but not forwarded: a connection attempt into a frozen network never completes.
    if (frozen) client.pause();
    else connectUpstream(pair);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    port: address.port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    freeze() {
      frozen = true;
      // Paused sockets are not read: what either side sends waits in the kernel's buffers, unanswered.
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    thaw(options = {}) {
      frozen = false;
      for (const pair of pairs) {
        if (pair.lost) continue;
        if (options.frozen === 'lost') {
          pair.lost = true;
          continue;
        }
        if (pair.upstream === undefined) connectUpstream(pair);
        pair.client.resume();
        pair.upstream?.resume();
      }
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A proxy in front of the server a URL names (a postgres:// URL, say), and the same URL through it. */
export async function proxyUrl(target: string): Promise<{ proxy: TcpProxy; url: URL }> {
  const url = new URL(target);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = `127.0.0.1:${proxy.port}`;
  return { proxy, url };
}
