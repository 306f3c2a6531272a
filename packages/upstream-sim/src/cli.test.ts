import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;
const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));

describe("cli", () => {
  it("prints its URL, serves, and closes cleanly on SIGTERM", async () => {
    const child = spawn(
      tsx,
      ["--conditions=source", cli, "--port", "0", "--parallel", "2", "--token-ms", "1"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let output = "";
      child.stdout.setEncoding("utf8");
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (text: string) => {
          output += text;
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match?.[1]) resolve(match[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
      });
      const res = await fetch(`${url}/v1/completions`, {
        method: "POST",
        body: JSON.stringify({ prompt: "Hi", max_tokens: 2 }),
      });
      expect((await res.json()).usage.completion_tokens).toBe(2);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 20_000);

  /** Runs the CLI to its exit; resolves with its code and what it printed on stderr. */
  async function fails(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(tsx, ["--conditions=source", cli, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      stderr += text;
    });
    const [code] = (await once(child, "exit")) as [number | null];
    return { code, stderr };
  }

  it("refuses a bad option in one line with a usage hint, and a port in use with a hint of its own", async () => {
    const bad = await fails(["--parallel", "0"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "upstream-sim: Expected `parallel` to be an integer from 1 to 100000, got `0` (number)\n\nRun with --help for usage.\n",
    );
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = taken.address() as { port: number };
      const busy = await fails(["--port", String(port)]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain("EADDRINUSE");
      expect(busy.stderr).toContain("pick another port with --port");
      expect(busy.stderr).not.toContain("Usage:");
    } finally {
      taken.close();
    }
  }, 30_000);
});
