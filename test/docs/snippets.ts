import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A TypeScript snippet of a README, marked runnable. */
export interface Snippet {
  /** `packages/core/README.md#1`: the README and the snippet's place among its `ts` blocks. */
  readonly name: string;
  /** A file name for it: `packages-core-1.ts`. */
  readonly file: string;
  /** A server (`<!-- runnable: server -->`): it must start and keep running, not exit. */
  readonly server: boolean;
  readonly code: string;
}

/**
 * The convention: a `ts` block right after `<!-- runnable -->` (or `<!-- runnable: server -->`) is a
 * complete program, run as pasted; any other `ts` block is a fragment.
 */
const BLOCK = /(?:<!-- runnable(: server)? -->\n)?```ts\n([\s\S]*?)\n```/g;

/** The READMEs checked: the root one and every package's and example's. */
export function readmes(root: string): string[] {
  const under = (dir: string) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}/README.md`)
      .filter((path) => {
        try {
          readFileSync(join(root, path));
          return true;
        } catch {
          return false;
        }
      });
  return ["README.md", ...under("packages"), ...under("examples")];
}

/** Every `ts` block of a README: whether it is marked runnable, and the snippet. */
export function blocksOf(root: string, readme: string): { runnable: boolean; snippet: Snippet }[] {
  const text = readFileSync(join(root, readme), "utf8");
  const slug = readme.replace(/\/?README\.md$/, "").replaceAll("/", "-") || "root";
  return [...text.matchAll(BLOCK)].map((match, n) => ({
    runnable: match[0].startsWith("<!--"),
    snippet: {
      name: `${readme}#${n + 1}`,
      file: `${slug}-${n + 1}.ts`,
      server: match[1] !== undefined,
      code: `${match[2]!}\n`,
    },
  }));
}
