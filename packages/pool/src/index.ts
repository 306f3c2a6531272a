export type { EngineSignals, ReplicaState } from "./replica-state.js";
