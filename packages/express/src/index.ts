export type { RequestSlot } from "@llm-scheduler/adapter-kit";
export { type SchedulerRequestHandler, schedulerMiddleware } from "./middleware.js";
export type { ExpressRejectionHandler, ExpressSchedulerOptions } from "./options.js";
export { type NodeApp, type ScheduledListener, scheduled } from "./scheduled.js";
export type { NodeRejectionHandler, ScheduledOptions } from "./scheduled-options.js";
