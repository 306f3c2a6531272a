import { adapterSchema } from "@llm-scheduler/adapter-kit";
import { BATCHES_HTTP_SCHEMA, BATCHES_SCHEMA, CREATE_SCHEMA } from "@llm-scheduler/batches";
import { type OptionTable, withOptionTables } from "@llm-scheduler/core/kit";
import { DASHBOARD_SCHEMA } from "@llm-scheduler/dashboard";
import { TRACE_SCHEMA } from "@llm-scheduler/otel";
import { HEALTH_SCHEMA, ROUTING_KEY_SCHEMA, SIGNALS_SCHEMA } from "@llm-scheduler/pool";
import { COLLECT_SCHEMA } from "@llm-scheduler/prometheus";
import { REDIS_BATCH_STORE_SCHEMA, REDIS_STORE_SCHEMA } from "@llm-scheduler/redis";
import { SCENARIO_SCHEMA } from "@llm-scheduler/simulator";
import { UPSTREAM_SCHEMA } from "@llm-scheduler/upstream-sim";

/** Every README with generated option tables, beside the tables it holds (the core's are its default). */
export const READMES: readonly { readonly path: string; readonly tables?: readonly OptionTable[] }[] = [
  { path: "packages/core/README.md" },
  ...["express", "hono", "koa"].map((name) => ({
    path: `packages/${name}/README.md`,
    tables: [{ name: "adapter", heading: "option", shape: adapterSchema() }],
  })),
  {
    path: "packages/batches/README.md",
    tables: [
      { name: "batches", heading: "option", shape: BATCHES_SCHEMA },
      { name: "batches-http", heading: "HTTP option", shape: BATCHES_HTTP_SCHEMA },
      { name: "create", heading: "`create()` option", shape: CREATE_SCHEMA },
    ],
  },
  {
    path: "packages/redis/README.md",
    tables: [
      { name: "redis-store", heading: "option", shape: REDIS_STORE_SCHEMA },
      { name: "redis-batch-store", heading: "`redisBatchStore()` option", shape: REDIS_BATCH_STORE_SCHEMA },
    ],
  },
  {
    path: "packages/pool/README.md",
    tables: [
      { name: "health", heading: "`health` option", shape: HEALTH_SCHEMA },
      { name: "signals", heading: "`signals` option", shape: SIGNALS_SCHEMA },
      { name: "routing-key", heading: "`createRoutingKey()` option", shape: ROUTING_KEY_SCHEMA },
    ],
  },
  { path: "packages/otel/README.md", tables: [{ name: "trace", heading: "option", shape: TRACE_SCHEMA }] },
  {
    path: "packages/prometheus/README.md",
    tables: [{ name: "collect", heading: "option", shape: COLLECT_SCHEMA }],
  },
  {
    path: "packages/dashboard/README.md",
    tables: [{ name: "dashboard", heading: "option", shape: DASHBOARD_SCHEMA }],
  },
  {
    path: "packages/simulator/README.md",
    tables: [{ name: "scenario", heading: "field", shape: SCENARIO_SCHEMA }],
  },
  {
    path: "packages/upstream-sim/README.md",
    tables: [{ name: "upstream", heading: "option", shape: UPSTREAM_SCHEMA }],
  },
];

/** `readme` (the text of `entry.path`) with its option tables regenerated. */
export function regenerated(entry: (typeof READMES)[number], readme: string): string {
  return withOptionTables(readme, entry.tables);
}
