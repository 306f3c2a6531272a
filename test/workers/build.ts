import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Bundles `worker-app.ts` (Hono, the middleware and core from their TypeScript sources) into one ES
 * module for workerd, as `wrangler` would: `platform: "neutral"`, so nothing Node-only can slip in.
 */
export async function bundleWorker(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./worker-app.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["source", "workerd", "worker", "browser", "import", "default"],
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
