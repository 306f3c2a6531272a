import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutputPath, OutputPathError } from "./output-path.js";

describe("checkOutputPath", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "llm-scheduler-out-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("accepts a new file in an existing directory, and an existing file, as absolute paths", async () => {
    await expect(checkOutputPath("--html", join(dir, "new.html"))).resolves.toBe(join(dir, "new.html"));
    await writeFile(join(dir, "old.html"), "x");
    await expect(checkOutputPath("--html", join(dir, "old.html"))).resolves.toBe(join(dir, "old.html"));
  });

  it.each([
    ["a missing directory", (d: string) => join(d, "nope", "r.html"), /nope does not exist/],
    ["a directory", (d: string) => d, /it is a directory/],
    ["a file used as a directory", (d: string) => join(d, "old.html", "r.html"), /is not a directory/],
    ["an empty path", () => " ", /the path is empty/],
  ])("rejects %s, naming the flag", async (_, pathOf, reason) => {
    await writeFile(join(dir, "old.html"), "x");
    const error = await checkOutputPath("--report", pathOf(dir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputPathError);
    expect((error as Error).message).toMatch(/^Cannot write `--report` to /);
    expect((error as Error).message).toMatch(reason);
  });
});
