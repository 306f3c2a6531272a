export type {
  BatchCounts,
  BatchesLike,
  BatchLike,
  BatchResultLike,
  BatchView,
  FailedItemView,
} from "./batches.js";
export { createDashboard, type Dashboard } from "./dashboard.js";
export {
  DASHBOARD as DASHBOARD_SCHEMA,
  type DashboardAccess,
  type DashboardOptions,
  type SchedulerLike,
} from "./options.js";
export type {
  EngineSignalsLike,
  PoolView,
  ReplicaHealthView,
  ReplicaLike,
  ReplicasLike,
  ReplicaView,
} from "./replicas.js";
export type { DashboardSnapshot, PriorityView } from "./snapshot.js";
export { sseFrame } from "./streams.js";
export type { WindowQuantiles } from "./wait-window.js";
