export type { RequestSlot } from "@llm-scheduler/adapter-kit";
export { holdBody } from "./hold-body.js";
export {
  type LlmSchedulerEnv,
  type LlmSchedulerVariables,
  type SchedulerMiddleware,
  schedulerMiddleware,
} from "./middleware.js";
export type { HonoRejectionHandler, HonoSchedulerOptions } from "./options.js";
