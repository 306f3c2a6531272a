// One streaming request at a time, the targets taking turns request by request (so that the machine's
// drift lands on all of them alike). Arguments: <count per target> <key> <url...>.
import type { Probe } from "../lib/node-child.js";

const body = JSON.stringify({
  model: "sim",
  messages: [{ role: "user", content: "Hi" }],
  max_tokens: 4,
  stream: true,
});

/** Each target's request times (to the last byte), in ms, in the order of `urls`. */
export const main: Probe = async ([count, key, ...urls]) => {
  const times: number[][] = urls.map(() => []);
  for (let i = 0; i < Number(count); i++) {
    for (let t = 0; t < urls.length; t++) {
      const start = performance.now();
      const answer = await fetch(`${urls[t]}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body,
      });
      await answer.arrayBuffer();
      if (answer.status === 200) times[t]!.push(performance.now() - start);
    }
  }
  return times;
};
