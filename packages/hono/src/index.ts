export { holdBody, type RequestSlot } from "@llm-scheduler/adapter-kit";
export type { LlmSchedulerEnv, LlmSchedulerVariables } from "./env.js";
export { type SchedulerMiddleware, schedulerMiddleware } from "./middleware.js";
export type { HonoRejectionHandler, HonoSchedulerOptions } from "./options.js";
export {
  type FetchApp,
  type ScheduledApp,
  scheduled,
  slotOf,
} from "./scheduled.js";
export type { FetchRejectionHandler, ScheduledOptions } from "./scheduled-options.js";
