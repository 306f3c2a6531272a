export type { RequestSlot } from "@llm-scheduler/adapter-kit";
export { flattenRequests } from "./flatten.js";
export { type SchedulerRequestHandler, schedulerMiddleware } from "./middleware.js";
export type {
  ExpressOptions,
  ExpressRejectionHandler,
  ExpressSchedulerOptions,
  ExpressShape,
  NodeRejectionHandler,
  ScheduledOptions,
} from "./options.js";
export { type NodeApp, type ScheduledListener, scheduled } from "./scheduled.js";
