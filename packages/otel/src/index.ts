export { type IncomingHeaders, joinTrace } from "./join.js";
export { TRACE as TRACE_SCHEMA, type TraceOptions } from "./options.js";
export { Names as TraceNames } from "./request-trace.js";
export { TracedScheduler, traceScheduler } from "./traced-scheduler.js";
