export type { ErrorBody } from "./errors.js";
export { type FaultKind, faultKinds } from "./fault-kinds.js";
export {
  type ChosenFault,
  type FaultRule,
  faultKeyHeader,
  faultTimesHeader,
  resolveFaultRules,
} from "./fault-rules.js";
export { faultHeader } from "./faults.js";
export { createLatencyModel, type LatencyModel } from "./latency-model.js";
export {
  type FaultRates,
  LATENCY as LATENCY_SCHEMA,
  type LatencyOptions,
  type ResolvedLatencyOptions,
  type ResolvedUpstreamOptions,
  resolveFaultRates,
  resolveLatencyOptions,
  resolveUpstreamOptions,
  UPSTREAM as UPSTREAM_SCHEMA,
  type UpstreamOptions,
} from "./options.js";
export { createRandom, mixSeed, type Random } from "./prng.js";
export { startReplicas, startUpstream, type Upstream } from "./server.js";
export type { UpstreamStats } from "./stats.js";
export { estimateTokens } from "./tokens.js";
