// Opens <count> streaming chat requests to <url> (key <key>), reads the first chunk of each, prints
// "OPEN <n>" once all are open, keeps reading for <seconds>, then ends. Arguments: <count> <seconds> <url> <key>.
import type { Probe } from "../lib/node-child.js";

export const main: Probe = async ([count, seconds, url, key]) => {
  const controllers: AbortController[] = [];
  let opened = 0;
  let failures = 0;
  const body = JSON.stringify({
    model: "sim",
    messages: [{ role: "user", content: "Hi" }],
    max_tokens: 1_000,
    stream: true,
  });
  const open = async () => {
    const controller = new AbortController();
    controllers.push(controller);
    try {
      const answer = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body,
        signal: controller.signal,
      });
      const reader = answer.body!.getReader();
      await reader.read();
      opened++;
      void (async () => {
        for (;;) if ((await reader.read()).done) break;
      })().catch(() => undefined);
    } catch {
      failures++;
    }
  };
  for (let i = 0; i < Number(count); i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, Number(count) - i) }, open));
  }
  console.log(`OPEN ${opened}`);
  await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1_000));
  for (const controller of controllers) controller.abort();
  return { opened, failures };
};
