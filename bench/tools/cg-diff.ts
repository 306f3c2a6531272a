// What one server of the HTTP part costs a request over another, function by function, in simulated
// instruction and data cache misses as well as instructions: a count that the machine's load does not
// move, and that this machine's missing hardware counters cannot give. Run `ir-http.ts`'s bundle (its
// header) under cachegrind with the caches simulated, twice per server, for two request counts:
//   valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 --LL=2097152,16,64 \
//     --cachegrind-out-file=/tmp/cg.no-op.3000 node --single-threaded --min-semi-space-size=64 \
//     --max-semi-space-size=64 bench/node_modules/.cache/ir-http.mjs express no-op 3000 3000
//   (the same with 9000 requests, and both for the other server, say `scheduled`), then
//   node --import tsx bench/tools/cg-diff.ts /tmp/cg.no-op.3000 /tmp/cg.no-op.9000 \
//     /tmp/cg.scheduled.3000 /tmp/cg.scheduled.9000 [rows=25] [sort: Ir|I1mr|D1mr=I1mr]
// Each server's per-request cost is the difference between its two runs over the difference in
// requests (the warm-up and start-up cancel out); the table is the second server's minus the first's.
// Code that V8 compiled at run time has no symbols: cachegrind files it under `???`.
import { readFileSync } from "node:fs";
import { FRAMEWORKS } from "../http/apps.js";

const EVENTS = ["Ir", "I1mr", "D1mr", "D1mw"] as const;
type Event = (typeof EVENTS)[number];
type Row = Record<Event, number>;
type Costs = Map<string, Row>;

const ZERO: Row = { Ir: 0, I1mr: 0, D1mr: 0, D1mw: 0 };

/** `later` minus `earlier`, event by event, divided by `per`. */
function difference(earlier: Row, later: Row, per = 1): Row {
  const row = { ...ZERO };
  for (const event of EVENTS) row[event] = (later[event] - earlier[event]) / per;
  return row;
}

/** `ir-http.ts`'s arguments are `<framework> <mode> <requests> [warm-up]`. */
function requestsOf(words: readonly string[]): number {
  const at = words.findIndex((word) => (FRAMEWORKS as readonly string[]).includes(word));
  return at < 0 ? Number.NaN : Number(words[at + 2]);
}

/** Per-function totals of one cachegrind output file, and the requests its run served. */
function load(file: string): { readonly requests: number; readonly costs: Costs } {
  let names: string[] = [];
  let requests = Number.NaN;
  let fn = "";
  const costs: Costs = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("events:")) names = line.slice(7).trim().split(/\s+/);
    else if (line.startsWith("cmd:")) requests = requestsOf(line.trim().split(/\s+/));
    else if (line.startsWith("fn=")) fn = line.slice(3);
    else if (/^\d/.test(line) && fn !== "") {
      const values = line.trim().split(/\s+/).slice(1).map(Number);
      const row = costs.get(fn) ?? { ...ZERO };
      for (const event of EVENTS) row[event] += values[names.indexOf(event)] ?? 0;
      costs.set(fn, row);
    }
  }
  if (!Number.isFinite(requests)) throw new Error(`${file}: no request count on its cmd: line`);
  return { requests, costs };
}

/** Per-request costs of one server, from its runs at two request counts. */
function perRequest(shortRun: string, longRun: string): Costs {
  const short = load(shortRun);
  const long = load(longRun);
  const requests = long.requests - short.requests;
  if (requests <= 0) throw new Error("The second run of a server must serve more requests than the first");
  const result: Costs = new Map();
  for (const fn of new Set([...short.costs.keys(), ...long.costs.keys()]))
    result.set(fn, difference(short.costs.get(fn) ?? ZERO, long.costs.get(fn) ?? ZERO, requests));
  return result;
}

const [baseShort, baseLong, shortRun, longRun, rowsText = "25", sort = "I1mr"] = process.argv.slice(2);
if (
  baseShort === undefined ||
  baseLong === undefined ||
  shortRun === undefined ||
  longRun === undefined ||
  !(EVENTS as readonly string[]).includes(sort)
)
  throw new Error(
    "Usage: cg-diff.ts <base short> <base long> <other short> <other long> [rows] [Ir|I1mr|D1mr]",
  );
const base = perRequest(baseShort, baseLong);
const other = perRequest(shortRun, longRun);
const rows = [...new Set([...base.keys(), ...other.keys()])].map((fn) => ({
  fn,
  ...difference(base.get(fn) ?? ZERO, other.get(fn) ?? ZERO),
}));
const total = (event: Event) => rows.reduce((sum, row) => sum + row[event], 0);
const cell = (value: number) => value.toFixed(0).padStart(8);
console.log(
  `per request, second server minus first: ${EVENTS.map((e) => `${e} ${cell(total(e))}`).join("  ")}`,
);
const jit = rows.find((row) => row.fn === "???");
if (jit !== undefined)
  console.log(`of which code V8 compiled (???): ${EVENTS.map((e) => `${e} ${cell(jit[e])}`).join("  ")}`);
console.log(`${EVENTS.map((e) => e.padStart(8)).join("")}  function`);
rows.sort((x, y) => y[sort as Event] - x[sort as Event]);
for (const row of rows.slice(0, Number(rowsText)))
  console.log(`${EVENTS.map((e) => cell(row[e])).join("")}  ${row.fn.slice(0, 100)}`);
