// OpenAI's Batch API on the proxy: files and batches served by @llm-scheduler/batches, each item run
// through the same scheduler (priority "batch", tenant from the API key) and sent to the same upstream.

import type { ProxyConfig } from "@llm-scheduler/adapter-kit/env-gateway";
import { type Batches, createBatches, nodeListener, openaiExecutor } from "@llm-scheduler/batches";
import type { Scheduler } from "@llm-scheduler/core";
import type { Express } from "express";

/**
 * Mounts `/v1/files` and `/v1/batches` on `app`; `tenantOf` names the tenant of an Authorization header
 * (a configured tenant of the key table), `undefined` refusing it with 401.
 */
export function mountBatches(
  app: Express,
  config: ProxyConfig,
  scheduler: Scheduler,
  tenantOf: (authorization: string | null) => Promise<string | undefined>,
): Batches {
  const batches = createBatches({
    scheduler,
    execute: openaiExecutor({ baseURL: `${config.upstreamUrl}/v1`, apiKey: config.upstreamKey }),
    tenant: (request) => tenantOf(request.headers.get("authorization")),
  });
  const serve = nodeListener((request) => batches.fetch(request));
  app.use(["/v1/files", "/v1/batches"], (req, res) => serve(req, res));
  return batches;
}
