import { execFileSync } from "node:child_process";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { repoRoot, usingDist } from "./node-child.js";

/** Where a result was measured; printed with every result, because absolute figures move between machines. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly freeGb: number;
  readonly os: string;
  readonly node: string;
  readonly v8: string;
  /** Load average over the last minute when measured: above the core count, other work competed. */
  readonly load: number;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    freeGb: Math.round(freemem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    v8: process.versions.v8,
    load: loadavg()[0] ?? 0,
  };
}

export function describeMachine(info: Machine = machine()): string {
  return `${info.cores} cores (${info.cpu}), ${info.memoryGb} GB RAM (${info.freeGb} GB free), ${info.os}, Node ${info.node} (V8 ${info.v8}), load average ${info.load.toFixed(1)}`;
}

/**
 * The commit measured, and whether the packages under test had uncommitted changes: figures belong
 * to a version of the code.
 */
export function revision(): string {
  try {
    const git = (...args: string[]): string =>
      execFileSync("git", args, {
        cwd: repoRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    const commit = git("rev-parse", "--short", "HEAD");
    const dirty = git("status", "--porcelain", "--", "packages").length > 0;
    const form = usingDist() ? "built packages (dist/)" : "TypeScript sources through tsx";
    return `${commit}${dirty ? " with uncommitted changes under packages/" : ""}, ${form}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}
