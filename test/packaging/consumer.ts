import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sh, testedVersion } from "./workspace.js";

/** What the consumer project installs from the registry beside the tarballs (pinned like the tests). */
const THIRD_PARTY = [
  "express",
  "koa",
  "@koa/router",
  "hono",
  "@types/express",
  "@types/koa",
  "@types/node",
] as const;

/** A fresh npm project outside the workspace, with the tarballs and the consumer files installed. */
export interface ConsumerProject {
  readonly dir: string;
}

/**
 * Creates a project in a temporary folder and installs the packed tarballs into it with npm, the way a
 * user would. Third-party packages (the frameworks, ioredis) come from the npm cache or the registry.
 */
export async function installConsumer(tarballs: ReadonlyMap<string, string>): Promise<ConsumerProject> {
  const dir = mkdtempSync(join(tmpdir(), "llm-scheduler-consumer-"));
  const dependencies: Record<string, string> = {};
  for (const [name, tarball] of tarballs) dependencies[name] = `file:${tarball}`;
  for (const name of THIRD_PARTY) dependencies[name] = testedVersion(name);
  // The tarballs must satisfy each other's ranges themselves, never a copy fetched from the registry.
  const overrides = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]));
  const manifest = { name: "consumer", private: true, type: "module", dependencies, overrides };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of ["smoke.mjs", "typed.ts", "tsconfig.json"]) {
    copyFileSync(new URL(`consumer/${file}`, import.meta.url), join(dir, file));
  }
  await sh(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--no-package-lock"],
    { cwd: dir, timeoutMs: 240_000 },
  );
  return { dir };
}
