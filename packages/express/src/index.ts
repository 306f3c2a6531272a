export type { RequestSlot } from "@llm-scheduler/adapter-kit";
export { type SchedulerRequestHandler, schedulerMiddleware } from "./middleware.js";
export type { ExpressRejectionHandler, ExpressSchedulerOptions } from "./options.js";
