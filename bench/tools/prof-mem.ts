// Serves one app of the HTTP part over in-memory connections (no sockets, no second process), to profile
// the server side alone:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=source --import tsx bench/tools/prof-mem.ts hono scheduled
//   node --import tsx bench/tools/cpu-top.ts /tmp/prof/<largest>.cpuprofile 40
// Arguments: <express|koa|hono> <mode> [rounds=10]; each round is 20,000 requests over 10 connections.
import { type Framework, type Mode, PATH, start } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";

const [framework, mode, rounds = "10"] = process.argv.slice(2) as [Framework, Mode, string];
const server = await start(framework, mode, 64);
const perRound: string[] = [];
for (let round = 0; round < Number(rounds); round++) {
  const { cpuMicros } = await loadInMemory((socket) => server.connect(socket), PATH, 20_000, 10);
  perRound.push(cpuMicros.toFixed(1));
}
console.log(`${framework} ${mode}: µs of CPU per request, per round: ${perRound.join(" ")}`);
await server.close();
