export { holdBody, type RequestSlot } from "@llm-scheduler/adapter-kit";
export {
  type LlmSchedulerEnv,
  type LlmSchedulerVariables,
  type SchedulerMiddleware,
  schedulerMiddleware,
} from "./middleware.js";
export type { HonoRejectionHandler, HonoSchedulerOptions } from "./options.js";
