import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Where Bun, Deno and Miniflare are installed: this folder's own `node_modules`. */
export const edgeRuntimes = fileURLToPath(new URL(".", import.meta.url));

/**
 * The integration tests' global setup: installs this folder's lockfile (Bun, Deno, workerd: ~360 MB the
 * root `pnpm install` leaves out). Up to date, it takes about a second; on a fresh machine it downloads
 * them once. A failure stops the run with pnpm's message: no runtime test is skipped.
 *
 * @example
 * // vitest.config.ts, the integration project: globalSetup: ["edge-runtimes/install.ts"]
 */
export default function setup(): void {
  execFileSync("pnpm", ["install", "--frozen-lockfile", "--reporter=silent"], {
    cwd: edgeRuntimes,
    stdio: ["ignore", "inherit", "inherit"],
  });
}
