import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../demo/spawn.js";

const cli = `${root}packages/gateway/src/node/cli.ts`;
/** Node itself runs the bin (through tsx's loader), so that signals reach the gateway's own process. */
const NODE_ARGS = ["--import", "tsx/esm", "--conditions=source"];

/** A config file in a fresh temporary folder. */
export function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "gateway-")), "gateway.yaml");
  writeFileSync(file, text);
  return file;
}

/** The bin run to its end: exit code and what it printed. */
export function runBin(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...NODE_ARGS, cli, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** The bin serving a file, once it says where. */
export interface ServingBin {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export function serveBin(file: string, env: Record<string, string> = {}): Promise<ServingBin> {
  const child = spawn(process.execPath, [...NODE_ARGS, cli, "--config", file], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${text}`)), 30_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /serving (http:\/\/[\d.]+:\d+)/.exec(text)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, child, output: () => text, exited });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`the gateway exited:\n${text}`)));
  });
}
