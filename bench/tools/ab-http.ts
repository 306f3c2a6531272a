// Same-process differences between the HTTP part's servers of one framework, robust to a loaded machine:
// every server answers a block of requests over in-memory connections in turn, in an order that rotates
// each round, and each round's CPU per request is taken against the no-op middleware of the same round
// (the same moment of the machine). Run it on two builds in alternating processes to compare them:
//   node --import tsx bench/tools/ab-http.ts express 16 2000        # the built packages (pnpm build)
//   node --conditions=source --import tsx bench/tools/ab-http.ts koa # the TypeScript sources
// Prints two figures per server: this thread's CPU (the event loop's own, `thread-cpu.ts`), then the
// process's (V8's helper threads included, which move Express's figures by tens of µs).
// Arguments: <express|koa|hono> [rounds=16] [requests per block=2000]
import { FRAMEWORKS, type Framework, type Mode, modesOf, PATH, start } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";
import { measuresThread } from "../http/thread-cpu.js";
import { median, quantile } from "../lib/stats.js";

const [framework, roundsText = "16", blockText = "2000"] = process.argv.slice(2) as [
  Framework,
  string,
  string,
];
if (!FRAMEWORKS.includes(framework))
  throw new Error(`Usage: ab-http.ts <${FRAMEWORKS.join("|")}> [rounds] [block]`);
const rounds = Number(roundsText);
const block = Number(blockText);
const CONNECTIONS = 10;

// The bare app is the peer of `scheduled(app)` (no middleware either), so it is served only beside it.
const modes = modesOf(framework).filter(
  (mode) => mode !== "bare" || modesOf(framework).includes("scheduled-app"),
);
const servers = await Promise.all(modes.map((mode) => start(framework, mode, 64)));
const perMode = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
const perModeThread = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
try {
  for (let round = -2; round < rounds; round++) {
    // Two warm-up rounds first, then `rounds` measured ones.
    for (let i = 0; i < modes.length; i++) {
      const index = (i + Math.max(round, 0)) % modes.length;
      const result = await loadInMemory(
        (socket) => servers[index]!.connect(socket),
        PATH,
        block,
        CONNECTIONS,
      );
      if (result.failures > 0) throw new Error(`${modes[index]}: ${result.failures} answers were not 2xx`);
      if (round < 0) continue;
      perMode.get(modes[index]!)!.push(result.cpuMicros);
      perModeThread.get(modes[index]!)!.push(result.threadMicros);
    }
  }
} finally {
  for (const server of servers) await server.close();
}

const cell = (values: readonly number[]) =>
  `${median(values).toFixed(1)} (${quantile(values, 0.25).toFixed(1)}–${quantile(values, 0.75).toFixed(1)})`;
console.log(
  `${framework}, ${rounds} rounds of ${block} requests per server; µs of CPU per request, median (IQR)`,
);
for (const [label, figures] of [
  [measuresThread ? "this thread" : "this process (no /proc/thread-self here)", perModeThread],
  ["this process, helper threads included", perMode],
] as const) {
  console.log(label);
  const noop = figures.get("no-op")!;
  for (const mode of modes) {
    const values = figures.get(mode)!;
    const over = values.map((value, round) => value - noop[round]!);
    console.log(
      `  ${mode.padEnd(15)} ${cell(values).padEnd(22)} over no-op ${mode === "no-op" ? "–" : cell(over)}`,
    );
    if (mode === "scheduled-app") {
      const bare = figures.get("bare")!;
      console.log(
        `  ${"".padEnd(38)} over bare  ${cell(values.map((value, round) => value - bare[round]!))}`,
      );
    }
  }
}
