/**
 * `@llm-scheduler/redis/layout`: what the store keeps in Redis, for operators who inspect a live
 * instance and for tests that check it. Not needed to use the store.
 *
 * @example
 * import { fixedKeys, keyList } from "@llm-scheduler/redis/layout";
 * const keys = fixedKeys("llm:"); // keys.state, keys.instances, ...
 * console.log(keyList(keys)); // every fixed key, in the order the Lua scripts receive them
 */
export { batchKeys } from "./batches/keys.js";
export { fixedKeys, type Keys, keyList, LAYOUT_VERSION } from "./keys.js";
export {
  type FunctionLibrary,
  functionLibrary,
  libraryCode,
  type ScriptName,
  scriptSource,
} from "./lua-source.js";
