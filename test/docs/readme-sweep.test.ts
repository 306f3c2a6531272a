import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../demo/spawn.js";

const SWEEP = /^pnpm simulate (\S+\.json --sweep .*)$/m;
const read = (path: string) => readFileSync(join(root, path), "utf8");

function simulate(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const tsx = join(root, "node_modules/.bin/tsx");
    const child = spawn(tsx, ["--conditions=source", "packages/simulator/src/cli.ts", ...args], {
      cwd: root,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(output))));
  });
}

describe("the sweep the READMEs show", () => {
  it("is one command in the root and the simulator README, and prints the verdict the root README shows", async () => {
    const rootReadme = read("README.md");
    const command = SWEEP.exec(rootReadme)?.[1];
    expect(command).toBeDefined();
    expect(SWEEP.exec(read("packages/simulator/README.md"))?.[1]).toBe(command);
    const verdict = /^best for the goal: .*$/m.exec(rootReadme)?.[0];
    expect(verdict).toBeDefined();
    const output = await simulate(command!.split(" "));
    expect(output).toContain(`${verdict}\n`);
    expect(read("packages/simulator/README.md")).toContain(`${verdict}\n`);
  }, 60_000);
});
