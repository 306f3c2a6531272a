export { type NodeWritableLike, watchNodeUsage } from "./node-usage.js";
export {
  type AdapterOptions,
  type Awaitable,
  type BodyReader,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
} from "./options.js";
export { failureOf, type Rejection, rejectionFor } from "./rejection.js";
export { type NodeResponseLike, ResponseWatch } from "./response-watch.js";
export {
  acquireSlot,
  type ClientSignalSource,
  isThenable,
  nodeHeaderReader,
  type RequestSlot,
} from "./slot.js";
export { estimateTokens } from "./tokens.js";
export { carriesUsage, UsageSniffer } from "./usage-sniffer.js";
