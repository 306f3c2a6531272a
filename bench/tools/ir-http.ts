// Serves one app of the HTTP part over in-memory connections for a fixed number of requests and exits:
// run under valgrind, the difference between two request counts is the instructions per request, a
// count that a loaded machine moves far less than time (the garbage collector's timing still varies
// it: run each build twice or more). Bundled first, so that start-up is
// short under valgrind (the built packages, `pnpm build`); the bundle goes under bench/node_modules so
// that Express and Koa, which it loads with require(), resolve from there:
//   node_modules/.pnpm/esbuild@0.28.2/node_modules/esbuild/bin/esbuild bench/tools/ir-http.ts --bundle \
//     --platform=node --format=esm --outfile=bench/node_modules/.cache/ir-http.mjs
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded \
//     --min-semi-space-size=64 --max-semi-space-size=64 bench/node_modules/.cache/ir-http.mjs express scheduled 30000
//   (the same with 10000; the "I refs" difference / 20000 is the instructions per request; one thread
//   and a fixed 64 MB young generation make repeats agree within a few thousand instructions, though up
//   to 11,000 apart were seen on Express with two runs side by side: run each build three times or more).
//   Count between 10,000 and 30,000 requests, not between 1,000 and 5,000: by 5,000 V8 is still
//   compiling the hot paths, which the shorter difference counts (Express's no-op app: 668,600 a request
//   that way, 564,400 in the steady state; the scheduler's grant and release alone 15,000 against 2,600).
// Arguments: <express|koa|hono> <mode> <requests> [warm-up requests=1000]
import { type Framework, type Mode, PATH, start } from "../http/apps.js";
import { loadInMemory } from "../http/in-memory.js";

const [framework, mode, requests, warm = "1000"] = process.argv.slice(2) as [Framework, Mode, string, string];
const server = await start(framework, mode, 64);
const connect = server.connect.bind(server);
await loadInMemory(connect, PATH, Number(warm), 10);
const { failures } = await loadInMemory(connect, PATH, Number(requests), 10);
await server.close();
if (failures > 0) throw new Error(`${failures} answers were not 2xx`);
