export { collectMetrics, type MetricsCollector } from "./collect.js";
export type { BatchCountsSource, BatchStatusCounts } from "./gauges.js";
export { DURATION_BUCKETS } from "./histogram.js";
export { tenantLabelValue } from "./label-value.js";
export { COLLECT as COLLECT_SCHEMA, type CollectMetricsOptions } from "./options.js";
export type { ReplicaRow, ReplicaRowsSource } from "./replica-gauges.js";
