export { collectMetrics, type MetricsCollector } from "./collect.js";
export { DURATION_BUCKETS } from "./histogram.js";
export { tenantLabelValue } from "./label-value.js";
export type {
  BatchCountsSource,
  BatchStatusCounts,
  CollectMetricsOptions,
  ReplicaRow,
  ReplicaRowsSource,
} from "./options.js";
