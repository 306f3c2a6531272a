// Serves one app of the HTTP part for a while, to profile it under load from another process:
//   node --conditions=source --import tsx bench/tools/serve.ts hono scheduled 10 /tmp/hono.cpuprofile &
//   node --conditions=source --import tsx bench/probe.ts load 8 10 <printed url>
// With a profile path, the CPU profile covers only the serving (from the first request to the end),
// not start-up. Arguments: <express|koa|hono> <bare|scheduled> [seconds=10] [profile path]
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { FRAMEWORKS, type Framework, start } from "../http/apps.js";

const [framework, mode = "scheduled", seconds = "10", profilePath] = process.argv.slice(2) as [
  Framework,
  string,
  string,
  string | undefined,
];
if (!FRAMEWORKS.includes(framework)) {
  throw new Error(`Usage: serve.ts <${FRAMEWORKS.join("|")}> <bare|scheduled> [seconds] [profile path]`);
}
const session = profilePath === undefined ? null : new Session();
if (session !== null) {
  session.connect();
  await session.post("Profiler.enable");
}
const server = await start(framework, mode === "bare" ? null : 64);
let served = 0;
let profiling: Promise<unknown> | null = null;
server.onRequest(() => {
  served++;
  profiling ??= session?.post("Profiler.start") ?? Promise.resolve();
});
console.log(server.url);
setTimeout(async () => {
  if (session !== null && profiling !== null) {
    await profiling;
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(profilePath!, JSON.stringify(profile));
  }
  console.error(`served ${served} requests`);
  await server.close();
  process.exit(0);
}, Number(seconds) * 1000);
