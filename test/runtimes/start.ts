import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stopChild } from "../demo/spawn.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = (name: string) =>
  fileURLToPath(new URL(`../edge-runtimes/node_modules/.bin/${name}`, import.meta.url));
// Deno's `.bin` shim is a Node script that runs the binary with `spawnSync`: stopping the shim would leave
// the Deno server running, so the test starts the binary the package installed beside it.
const denoBinary = fileURLToPath(new URL("../edge-runtimes/node_modules/deno/deno", import.meta.url));

/** Bun and Deno, each with the arguments that run `script` (in this folder) from its TypeScript source. */
export function runtimesFor(script: string): ReadonlyArray<readonly [string, string, readonly string[]]> {
  return [
    ["bun", bin("bun"), ["--conditions=source", script]],
    [
      "deno",
      denoBinary,
      [
        "run",
        "--allow-net",
        "--allow-read",
        "--allow-env",
        "--sloppy-imports",
        "--conditions=source",
        script,
      ],
    ],
  ];
}

let child: ChildProcess | undefined;

/** Stops the server `start()` started last (call it in `afterEach`). */
export async function stopStarted(): Promise<void> {
  if (child !== undefined) await stopChild(child);
  child = undefined;
}

/** Starts a server script under a runtime and resolves with its URL once it prints `{"port":N}`. */
export function start(
  binary: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<string> {
  if (!existsSync(binary)) {
    throw new Error(
      `${binary} is missing: run \`pnpm install\` in test/edge-runtimes (the bun and deno npm packages bring it)`,
    );
  }
  const spawned = spawn(binary, args, {
    cwd: here,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  child = spawned;
  let text = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port within 30 s:\n${text}`)), 30_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const port = /\{"port":(\d+)\}/.exec(text)?.[1];
      if (port !== undefined) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    spawned.stdout.on("data", onData);
    spawned.stderr.on("data", onData);
    spawned.once("exit", (code) => reject(new Error(`exited with ${code} before listening:\n${text}`)));
  });
}
