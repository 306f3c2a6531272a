export {
  type AdapterOptions,
  type Awaitable,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "./options.js";
export { failureOf, type Rejection, rejectionFor } from "./rejection.js";
export { abortWhenGone, type NodeResponseLike, ResponseWatch, releaseWhenEnded } from "./response-watch.js";
export { acquireSlot, isThenable, nodeHeaderReader, type RequestSlot } from "./slot.js";
export { optionError } from "./validate.js";
