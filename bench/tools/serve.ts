// Serves one app of the HTTP part for a while, to profile it under load from another process:
//   node --conditions=source --import tsx bench/tools/serve.ts hono scheduled 10 /tmp/hono.cpuprofile &
//   node --conditions=source --import tsx bench/probe.ts load 8 10 <printed url>
// With a profile path, the CPU profile covers only the serving (from the first request to the end),
// not start-up. Arguments: <express|koa|hono> <bare|no-op|scheduled> [seconds=10] [profile path]
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { FRAMEWORKS, type Framework, MODES, type Mode, start } from "../http/apps.js";

const [framework, mode = "scheduled", seconds = "10", profilePath] = process.argv.slice(2) as [
  Framework,
  string,
  string,
  string | undefined,
];
if (!FRAMEWORKS.includes(framework)) {
  throw new Error(`Usage: serve.ts <${FRAMEWORKS.join("|")}> <${MODES.join("|")}> [seconds] [profile path]`);
}
const session = profilePath === undefined ? null : new Session();
if (session !== null) {
  session.connect();
  await session.post("Profiler.enable");
}
if (!(MODES as readonly string[]).includes(mode)) throw new Error(`Mode must be one of ${MODES.join(", ")}`);
const server = await start(framework, mode as Mode);
let served = 0;
let profiling: Promise<unknown> | null = null;
let cpuAtFirst: NodeJS.CpuUsage | undefined;
server.onRequest(() => {
  served++;
  cpuAtFirst ??= process.cpuUsage();
  profiling ??= session?.post("Profiler.start") ?? Promise.resolve();
});
console.log(server.url);
setTimeout(async () => {
  if (session !== null && profiling !== null) {
    await profiling;
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(profilePath!, JSON.stringify(profile));
  }
  const cpu = process.cpuUsage(cpuAtFirst);
  const perRequest = served === 0 ? 0 : (cpu.user + cpu.system) / served;
  console.error(
    `served ${served} requests, ${perRequest.toFixed(1)} µs of CPU each (this process, all threads)`,
  );
  await server.close();
  process.exit(0);
}, Number(seconds) * 1000);
