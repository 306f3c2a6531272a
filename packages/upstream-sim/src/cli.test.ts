import { spawn } from "node:child_process";
import { once } from "node:events";
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
});
