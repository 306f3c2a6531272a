export type { RequestSlot } from "@llm-scheduler/adapter-kit";
export { type LlmSchedulerState, type SchedulerMiddleware, schedulerMiddleware } from "./middleware.js";
export type { KoaRejectionHandler, KoaSchedulerOptions } from "./options.js";
