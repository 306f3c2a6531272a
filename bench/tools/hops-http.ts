// The asynchronous resources each HTTP part server makes per request (promises, process.nextTick
// ticks, queued microtasks, timers), counted with async_hooks over in-memory connections. A count, not
// a time: a loaded machine does not move it. A timer or an immediate on a server's path would add
// latency that no CPU figure shows; promises and ticks are CPU only.
//   node --import tsx bench/tools/hops-http.ts koa no-op scheduled p-queue   # the built packages
// Arguments: <express|koa|hono> <mode...> (modes as in bench/http/apps.ts)
import { createHook } from "node:async_hooks";
import type { Duplex } from "node:stream";
import { FRAMEWORKS, type Framework, type Mode, PATH, start } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";

const [framework, ...modes] = process.argv.slice(2) as [Framework, ...Mode[]];
if (!FRAMEWORKS.includes(framework) || modes.length === 0)
  throw new Error(`Usage: hops-http.ts <${FRAMEWORKS.join("|")}> <mode...>`);
const REQUESTS = 10_000;

for (const mode of modes) {
  const server = await start(framework, mode, 64);
  const connect = (socket: Duplex): void => server.connect(socket);
  await loadInMemory(connect, PATH, 2_000, 10); // warm-up, not counted
  const counts = new Map<string, number>();
  const hook = createHook({
    init(_id, type) {
      counts.set(type, (counts.get(type) ?? 0) + 1);
    },
  }).enable();
  const { failures } = await loadInMemory(connect, PATH, REQUESTS, 10);
  hook.disable();
  await server.close();
  if (failures > 0) throw new Error(`${mode}: ${failures} answers were not 2xx`);
  const perRequest = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([type, count]) => `${type} ${(count / REQUESTS).toFixed(2)}`);
  console.log(`${framework} ${mode.padEnd(13)} per request: ${perRequest.join(", ")}`);
}
