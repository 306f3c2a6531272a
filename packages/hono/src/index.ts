export { holdBody, type RequestSlot } from "@llm-scheduler/adapter-kit";
export type { LlmSchedulerEnv, LlmSchedulerVariables } from "./env.js";
export { type SchedulerMiddleware, schedulerMiddleware } from "./middleware.js";
export type {
  FetchRejectionHandler,
  HonoOptions,
  HonoRejectionHandler,
  HonoSchedulerOptions,
  HonoShape,
  ScheduledOptions,
} from "./options.js";
export {
  type FetchApp,
  type ScheduledApp,
  scheduled,
  slotOf,
} from "./scheduled.js";
