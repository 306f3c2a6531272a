import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));
/** The files that wire the two layers together: the package entry and `createBatches`. */
const WIRING = new Set(["index.ts", "create.ts"]);
/** `import … from "./x.js"`, `export … from`, `import "./x.js"` and `import("./x.js")`. */
const IMPORT = /(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"|import\s*\(?\s*"(\.{1,2}\/[^"]+)"/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The package files `file` imports (type-only imports included), as paths relative to src. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  return [...text.matchAll(IMPORT)].map((match) =>
    relative(SRC, join(SRC, dirname(file), (match[1] ?? match[2])!.replace(/\.js$/, ".ts"))),
  );
}

/** Every package file reachable from `file`, with the chain that reaches it. */
function reachable(file: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[file, [file]]]);
  const queue = [file];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const target of importsOf(next)) {
      if (seen.has(target)) continue;
      seen.set(target, [...seen.get(next)!, target]);
      queue.push(target);
    }
  }
  return seen;
}

const all = sources(SRC).map((path) => relative(SRC, path));
const domain = all.filter((file) => !file.startsWith("http/") && !WIRING.has(file));

describe("layers: the batch layer knows nothing of HTTP", () => {
  it("finds the files and their imports it checks", () => {
    expect(domain).toContain("batches.ts");
    expect(all).toContain("http/handler.ts");
    expect(reachable("create.ts").has("http/handler.ts")).toBe(true);
  });

  it("no file outside http/ (but the wiring) reaches a file under http/, even for a type", () => {
    const crossings = domain.flatMap((file) =>
      [...reachable(file).entries()]
        .filter(([target]) => target.startsWith("http/"))
        .map(([, chain]) => chain.join(" -> ")),
    );
    expect(crossings).toEqual([]);
  });
});
