export { type BatchJobSpec, generateBatchJobs } from "./batch-jobs.js";
export {
  type BatchOutcome,
  type BatchWindowOptions,
  type BatchWindowResult,
  simulateBatchWindows,
} from "./batch-windows.js";
export {
  Capacity,
  type CapacityChange,
  type CapacityOptions,
  UpstreamOverloaded,
} from "./capacity.js";
export { parseDurationFlag, type SimulateCommand } from "./cli-args.js";
export { type DemoScenarioOptions, demoScenario } from "./demo-scenario.js";
export { ClientTimeout, Driver, type DriverOptions } from "./driver.js";
export type { Range, ResolvedRange } from "./fields.js";
export { FifoLimiter, type Release } from "./fifo-limiter.js";
export { formatDuration, formatRate, formatShare, layoutTable, parseDuration } from "./format.js";
export { checkGoal, describeGoal, type GoalCheck, pickBest } from "./goal.js";
export { explainMakespan, type MakespanBreakdown, makespanVsIdeal } from "./ideal.js";
export { type ControllerFactory, LightAbortController, LightAbortSignal } from "./light-abort.js";
export { checkOutputPath, OutputPathError } from "./output-path.js";
export { PrefixCache } from "./prefix-cache.js";
export {
  type KindCounters,
  type LoadSample,
  type PriorityWaits,
  Recorder,
  type RecorderOptions,
  type RequestRecord,
  type SlotRecord,
} from "./recorder.js";
export { type ReportInput, renderHtmlReport } from "./report-html.js";
export {
  SCENARIO as SCENARIO_SCHEMA,
  type Scenario,
  type ScenarioBatch,
  type ScenarioBatchJobs,
  type ScenarioBatchTenant,
  type ScenarioChat,
  type ScenarioGateway,
  type ScenarioGoal,
  type ScenarioPool,
  type ScenarioReplica,
  type ScenarioScheduler,
  type ScenarioSystemPrompts,
  type ScenarioUpstream,
} from "./scenario.js";
export { ScenarioError } from "./scenario-error.js";
export {
  type LoadedScenario,
  loadScenarioFile,
  type ScenarioOverrides,
} from "./scenario-load.js";
export {
  type ResolvedBatch,
  type ResolvedBatchJobs,
  type ResolvedBatchTenant,
  type ResolvedChat,
  type ResolvedGoal,
  type ResolvedPool,
  type ResolvedReplica,
  type ResolvedScenario,
  resolveScenario,
} from "./scenario-resolve.js";
export { type GatewayKind, type SimulateOptions, simulate } from "./simulate.js";
export { SlotMeter, type SlotMeterOptions, type SlotTotals } from "./slot-meter.js";
export {
  type BatchResult,
  type InteractiveResult,
  type Percentiles,
  percentiles,
  type RunResult,
  type SlotResult,
  summarize,
  type TenantResult,
} from "./stats.js";
export { renderSweep, runSweep, type SweepOutcome, type SweepRow } from "./sweep.js";
export { parseSweep, type SweepAxis, type SweepVariant, sweepVariants } from "./sweep-spec.js";
export { winningConfig } from "./sweep-winner.js";
export {
  describeReplicas,
  describeScenario,
  improvement,
  renderComparison,
  tableLegend,
} from "./table.js";
export type {
  Attempt,
  AttemptFailure,
  AttemptHooks,
  Gateway,
  LoadSnapshot,
  Transport,
  WaitSink,
} from "./transport.js";
export { reservedOf, schedulerLoad } from "./transport.js";
export {
  attemptFailureOf,
  createVirtualFifoGateway,
  createVirtualScheduledGateway,
} from "./virtual-gateways.js";
export { NoReplicaAvailable, type ReplicaResult, VirtualPool } from "./virtual-pool.js";
export { type GenerationJob, type GenerationTarget, VirtualUpstream } from "./virtual-upstream.js";
export {
  generateWorkload,
  type RequestKind,
  type RequestSpec,
  type Workload,
} from "./workload.js";
