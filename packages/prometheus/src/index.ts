export { collectMetrics, type MetricsCollector } from "./collect.js";
export { DURATION_BUCKETS } from "./histogram.js";
export { tenantLabelValue } from "./label-value.js";
export {
  type BatchCountsSource,
  type BatchStatusCounts,
  COLLECT as COLLECT_SCHEMA,
  type CollectMetricsOptions,
  type ReplicaRow,
  type ReplicaRowsSource,
} from "./options.js";
