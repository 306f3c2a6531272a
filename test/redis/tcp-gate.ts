import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay on 127.0.0.1 in front of a server port, so that a test decides when one client process may
 * reach the server again: while shut, new connections are closed at once (as a refused connection
 * would be); while frozen, the open connections stay open but relay nothing (a network partition: the
 * bytes wait in the relay until `thaw()`); when the server goes away, the relayed connections close
 * with it.
 */
export interface TcpGate {
  readonly url: string;
  /** Closes new connections at once until `open()`. */
  shut(): void;
  open(): void;
  /** Stops relaying bytes on the open connections, both ways, without closing them. */
  freeze(): void;
  /** Relays again what waited and what comes next. */
  thaw(): void;
  close(): Promise<void>;
}

/**
 * Starts a gate relaying to `targetPort` on 127.0.0.1, listening on a free port.
 *
 * @example
 * const gate = await startTcpGate(redis.server.port);
 * const store = new RedisStore({ url: gate.url });
 */
export async function startTcpGate(targetPort: number): Promise<TcpGate> {
  let shut = false;
  let frozen = false;
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    if (shut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    pairs.add(pair);
    if (frozen) {
      client.pause();
      return;
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    shut() {
      shut = true;
    },
    open() {
      shut = false;
    },
    freeze() {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
