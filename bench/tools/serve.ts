// Serves one app of the HTTP part for a while, to profile it under load from another process:
//   node --cpu-prof --conditions=source --import tsx bench/tools/serve.ts hono scheduled 10 &
//   npx autocannon -c 10 -d 8 <printed url>
// Arguments: <express|koa|hono> <bare|scheduled> [seconds=10]
import { FRAMEWORKS, type Framework, start } from "../http/apps.js";

const [framework, mode = "scheduled", seconds = "10"] = process.argv.slice(2) as [Framework, string, string];
if (!FRAMEWORKS.includes(framework))
  throw new Error(`Usage: serve.ts <${FRAMEWORKS.join("|")}> <bare|scheduled> [seconds]`);
const server = await start(framework, mode === "bare" ? null : 64);
console.log(server.url);
setTimeout(async () => {
  console.error(`served ${server.scheduler?.metrics().started ?? "(bare)"} scheduled requests`);
  await server.close();
  process.exit(0);
}, Number(seconds) * 1000);
