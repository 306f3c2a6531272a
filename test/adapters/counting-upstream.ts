import { createServer } from "node:http";
import { listen } from "./serve.js";

/**
 * A simulated OpenAI-compatible upstream that streams a completion forever (a chunk every `gapMs`) and
 * counts the requests it is serving at once. A request counts from the moment it arrives until the
 * upstream first learns that its client has gone (end of input on its connection, or the connection
 * closing): the earliest any upstream can know it, so the count is what the upstream really carries.
 *
 * @example
 * const upstream = await startCountingUpstream();
 * // ...drive a gateway against upstream.url...
 * expect(upstream.maxOpen).toBeLessThanOrEqual(limit);
 */
export async function startCountingUpstream(gapMs = 3) {
  let open = 0;
  let maxOpen = 0;
  let received = 0;
  /** When `open` changed, and what it became: to tell how long it stayed above a limit. */
  const changes: Array<readonly [at: number, open: number]> = [];
  const server = createServer((req, res) => {
    received++;
    open++;
    maxOpen = Math.max(maxOpen, open);
    changes.push([performance.now(), open]);
    let counted = true;
    const gone = (): void => {
      if (!counted) return;
      counted = false;
      open--;
      changes.push([performance.now(), open]);
      clearInterval(timer);
    };
    req.socket.once("end", gone);
    req.socket.once("close", gone);
    res.once("close", gone);
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const chunk = `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ delta: { content: "x" } }] })}\n\n`;
    res.write(chunk);
    const timer = setInterval(() => res.write(chunk), gapMs);
  });
  const listening = await listen(server);
  return {
    url: listening.url,
    /** Requests being served right now. */
    get open() {
      return open;
    },
    /** Most requests served at once. */
    get maxOpen() {
      return maxOpen;
    },
    /** Milliseconds in all during which more than `limit` requests were being served at once. */
    msAbove(limit: number): number {
      let total = 0;
      for (let i = 0; i < changes.length; i++) {
        const [at, count] = changes[i]!;
        if (count > limit) total += (changes[i + 1]?.[0] ?? performance.now()) - at;
      }
      return total;
    },
    /** Requests received in all. */
    get received() {
      return received;
    },
    close: listening.close,
  };
}
