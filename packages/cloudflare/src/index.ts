export { DurableObjectStore } from "./durable-object-store.js";
export { inProcessNamespace } from "./in-process.js";
export type { ObjectContext, ObjectStorage } from "./object-storage.js";
export type { DurableObjectStoreOptions, ObjectNamespace, ObjectStub } from "./options.js";
export { SchedulerObject } from "./scheduler-object.js";
export type { AgingClock } from "./wire.js";
