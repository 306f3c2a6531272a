// Summarizes a V8 CPU profile (from `node --cpu-prof`): functions by self time, with their file.
// Usage: node --import tsx bench/tools/cpu-top.ts <file.cpuprofile> [rows=30] [filter]
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, rowsText = "30", filter = ""] = process.argv.slice(2);
if (file === undefined) throw new Error("Usage: cpu-top.ts <file.cpuprofile> [rows] [filter]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const selfTime = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const byFunction = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const time = selfTime.get(node.id) ?? 0;
  total += time;
  const { functionName, url } = node.callFrame;
  const where = url.split("/").slice(-2).join("/");
  const key = `${functionName || "(anonymous)"}  ${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + time);
}
const rows = [...byFunction]
  .filter(([key]) => key.includes(filter))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(rowsText));
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
for (const [key, time] of rows) console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`);
