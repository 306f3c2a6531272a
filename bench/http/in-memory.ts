// Drives a real Node HTTP server without the kernel: each "connection" is an in-memory Duplex handed to
// the server as a socket, so Node's HTTP parser, ServerResponse and the framework all run as usual,
// while the client side costs almost nothing and nothing else waits on the network. On a loaded
// machine, the CPU per request measured this way moves far less than one measured over TCP.

import { Duplex } from "node:stream";
import { threadCpuMicros } from "./thread-cpu.js";

const HEADER_END = "\r\n\r\n";

/** One keep-alive connection that sends the next request as soon as the previous answer is complete. */
class LoopConnection extends Duplex {
  readonly #request: Buffer;
  readonly #onAnswer: (ok: boolean) => boolean;
  #pending = "";

  /** `onAnswer` is told of each complete answer (2xx or not) and says whether to send another. */
  constructor(request: Buffer, onAnswer: (ok: boolean) => boolean) {
    super();
    this.#request = request;
    this.#onAnswer = onAnswer;
  }

  send(): void {
    this.push(this.#request);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#pending += chunk.toString("latin1");
    this.#drain();
    done();
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    for (const { chunk } of chunks) this.#pending += chunk.toString("latin1");
    this.#drain();
    done();
  }

  /** Takes every complete answer off the front of what was received (content-length or chunked bodies). */
  #drain(): void {
    for (;;) {
      const headEnd = this.#pending.indexOf(HEADER_END);
      if (headEnd < 0) return;
      const head = this.#pending.slice(0, headEnd).toLowerCase();
      const length = /\r\ncontent-length: *(\d+)/.exec(head)?.[1];
      let end: number;
      if (length !== undefined) {
        end = headEnd + HEADER_END.length + Number(length);
        if (this.#pending.length < end) return;
      } else {
        const last = this.#pending.indexOf(`0${HEADER_END}`, headEnd);
        if (last < 0) return;
        end = last + 1 + HEADER_END.length;
      }
      const ok = head.startsWith("http/1.1 2");
      this.#pending = this.#pending.slice(end);
      if (this.#onAnswer(ok)) queueMicrotask(() => this.send());
    }
  }
}

/** What one in-memory load run measured. */
export interface InMemoryResult {
  readonly requests: number;
  readonly failures: number;
  /** This process's user + system CPU per request, in µs (the client side included; it is the same for every server). */
  readonly cpuMicros: number;
  /** This thread's CPU per request, in µs (see `thread-cpu.ts`): the event loop's own, without V8's helper threads. */
  readonly threadMicros: number;
}

/**
 * Sends `total` GET requests for `path` over `connections` in-memory keep-alive connections to the
 * server behind `connect` (which hands a socket to the server: `server.emit("connection", socket)`).
 *
 * @example
 * const { cpuMicros } = await loadInMemory((socket) => server.emit("connection", socket), "/v1/ping", 20_000, 10);
 */
export function loadInMemory(
  connect: (socket: Duplex) => void,
  path: string,
  total: number,
  connections: number,
): Promise<InMemoryResult> {
  const request = Buffer.from(
    `GET ${path} HTTP/1.1\r\nhost: bench\r\nconnection: keep-alive\r\n\r\n`,
    "latin1",
  );
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    let failures = 0;
    const sockets: LoopConnection[] = [];
    const started = process.cpuUsage();
    const threadStarted = threadCpuMicros();
    const onAnswer = (ok: boolean): boolean => {
      answered++;
      if (!ok) failures++;
      if (answered === total) {
        const used = process.cpuUsage(started);
        const threadUsed = threadCpuMicros() - threadStarted;
        for (const socket of sockets) socket.destroy();
        resolve({
          requests: total,
          failures,
          cpuMicros: (used.user + used.system) / total,
          threadMicros: threadUsed / total,
        });
        return false;
      }
      if (sent >= total) return false;
      sent++;
      return true;
    };
    for (let i = 0; i < connections && sent < total; i++) {
      const socket = new LoopConnection(request, onAnswer);
      sockets.push(socket);
      connect(socket);
      sent++;
      socket.send();
    }
  });
}
