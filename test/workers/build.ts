import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Bundles a Worker's entry module (Hono, the middleware and the packages from their TypeScript sources)
 * into one ES module for workerd, as `wrangler` would: `platform: "neutral"`, so nothing Node-only can
 * slip in; `cloudflare:*` modules are workerd's own and stay imports.
 *
 * @example
 * const script = await bundleModule(new URL("./edge-worker.ts", import.meta.url));
 */
export async function bundleModule(entry: URL): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["source", "workerd", "worker", "browser", "import", "default"],
    mainFields: ["module", "main"],
    external: ["cloudflare:*"],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** Bundles `worker-app.ts`, the Worker of `workers.test.ts`. */
export function bundleWorker(): Promise<string> {
  return bundleModule(new URL("./worker-app.ts", import.meta.url));
}
