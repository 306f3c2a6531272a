import type { JsonSchema } from "@llm-scheduler/core";
import { GATEWAY_NODE } from "./schema.js";

export type { GatewayConfig } from "./schema.js";

/**
 * The JSON Schema (draft 2020-12) of the gateway's file, made from the same schema that checks it (the
 * scheduler's options under each model are the library's own). Published as `gateway.schema.json`.
 *
 * @example
 * # yaml-language-server: $schema=./node_modules/@llm-scheduler/gateway/gateway.schema.json
 */
export function gatewayJsonSchema(): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "llm-scheduler gateway configuration",
    ...GATEWAY_NODE.json,
  };
}
