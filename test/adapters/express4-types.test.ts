import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("@llm-scheduler/express types", () => {
  it("fit an Express 4 app typed with @types/express 4", { timeout: 60_000 }, async () => {
    const project = `${root}test/adapters/express4-types/tsconfig.json`;
    // One compiler run: `--listFiles` checks the program and also prints every file in it.
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        `${root}node_modules/.bin/tsc`,
        ["-p", project, "--listFiles"],
        { cwd: root },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, output: stdout + stderr }),
      );
    });
    const lines = output.split("\n").filter((line) => line !== "");
    // No diagnostics: every line is a file of the program.
    expect(
      lines.filter((line) => !line.startsWith("/")),
      output,
    ).toEqual([]);
    expect(code).toBe(0);
    // The Express types in the program are version 4's (from the alias), not 5's.
    expect(output).toMatch(/@types\+express@4\.17\.21\/node_modules\/@types\/express\/index\.d\.ts/);
  });
});
