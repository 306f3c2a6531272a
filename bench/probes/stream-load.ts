// Open-loop streaming load from a separate process: `rate` chat requests per second with `stream: true`
// for `seconds`, each read to its last byte. Arguments: <seconds> <rate> <url> <key>.
import type { Probe } from "../lib/node-child.js";

/** What the parent gets: each request's time to first byte and to its end, in ms, and the failures. */
export interface StreamLoad {
  readonly ttfb: number[];
  readonly total: number[];
  readonly failures: number;
}

const body = JSON.stringify({
  model: "sim",
  messages: [{ role: "user", content: "Hi" }],
  max_tokens: 4,
  stream: true,
});

export const main: Probe = async ([seconds, rate, url, key]) => {
  const ttfb: number[] = [];
  const total: number[] = [];
  let failures = 0;
  const one = async () => {
    const start = performance.now();
    try {
      const answer = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body,
      });
      const reader = answer.body!.getReader();
      let first = true;
      for (;;) {
        const { done } = await reader.read();
        if (first) {
          ttfb.push(performance.now() - start);
          first = false;
        }
        if (done) break;
      }
      if (answer.status !== 200) failures++;
      else total.push(performance.now() - start);
    } catch {
      failures++;
    }
  };
  const interval = 1_000 / Number(rate);
  const count = Math.round(Number(seconds) * Number(rate));
  const begin = performance.now();
  const pending: Promise<void>[] = [];
  for (let sent = 0; sent < count; ) {
    const due = Math.min(count, Math.floor((performance.now() - begin) / interval) + 1);
    while (sent < due) {
      pending.push(one());
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return { ttfb, total, failures } satisfies StreamLoad;
};
