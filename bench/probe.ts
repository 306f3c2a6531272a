// Runs one probe (bench/probes/<name>.ts) in this fresh process and hands its result to the parent.
// Usage: probe.ts <name> [args...]; started by runProbe() in lib/node-child.ts.
import { loadProbe, sendResult } from "./lib/node-child.js";

const [name, ...args] = process.argv.slice(2);
sendResult(await (await loadProbe(name!))(args));
// A probe may leave a task pending for good (its blocked slot): exit rather than wait for it.
process.exit(0);
