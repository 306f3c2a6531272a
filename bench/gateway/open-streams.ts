// Memory and CPU of a proxy while `count` streams stay open through it (the load in its own process).
import { spawn } from "node:child_process";
import { benchFile, repoRoot, tsFlags } from "../lib/node-child.js";

/** What one proxy costs with the streams open, against itself before they were opened. */
export interface StreamCost {
  readonly opened: number;
  /** RSS added per open stream, bytes (after gc, open against before). */
  readonly rssPerStream: number;
  /** V8 heap added per open stream, bytes (after gc). */
  readonly heapPerStream: number;
  /** CPU of this process while the streams are open and sending, in % of one core. */
  readonly cpuPercent: number;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Opens `count` streams to `url` from a child process, measures this process, then lets them go. */
export async function measureOpenStreams(
  url: string,
  key: string,
  count: number,
  windowMs: number,
): Promise<StreamCost> {
  gc();
  const before = process.memoryUsage();
  const child = spawn(
    process.execPath,
    [
      ...tsFlags(),
      benchFile("probe.ts"),
      "open-streams",
      String(count),
      String(windowMs / 1000 + 5),
      url,
      key,
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
  );
  let text = "";
  const opened = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /OPEN (\d+)/.exec(text);
      if (match !== null) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`open-streams exited with ${code}: ${text.slice(-500)}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const cpuFrom = process.cpuUsage();
  const wallFrom = performance.now();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const cpu = process.cpuUsage(cpuFrom);
  const wall = performance.now() - wallFrom;
  gc();
  const during = process.memoryUsage();
  await new Promise((resolve) => child.once("exit", resolve));
  return {
    opened,
    rssPerStream: (during.rss - before.rss) / Math.max(1, opened),
    heapPerStream: (during.heapUsed - before.heapUsed) / Math.max(1, opened),
    cpuPercent: ((cpu.user + cpu.system) / 1_000 / wall) * 100,
  };
}
