export { CREDENTIAL_HEADERS, redactCredentials } from "./credentials.js";
export { type NodeWritable, reportFirstByte } from "./first-byte.js";
export { untilFirstChunk } from "./first-chunk.js";
export { answerInstead, headHeld, holdHead, type NodeHeadLike } from "./held-head.js";
export { holdBody } from "./hold-body.js";
export { type NodeWritableLike, watchNodeUsage } from "./node-usage.js";
export {
  type AdapterOptions,
  type AdapterShapes,
  type Awaitable,
  adapterResolver,
  adapterSchema,
  type BodyReader,
  type RejectionHandler,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
  type ShapeOptions,
} from "./options.js";
export { failureForStatus, type Rejection, rejectionFor } from "./rejection.js";
export { type NodeResponseLike, ResponseWatch, type StillWorking } from "./response-watch.js";
export { onRunTimeout, raceRunTimeout, runTimeoutOf, stopOf } from "./run-timeout.js";
export {
  acquireSlot,
  type ClientSignalSource,
  isThenable,
  nodeHeaderReader,
  type RequestSlot,
} from "./slot.js";
export { countsTokens, readsUsage } from "./token-accounting.js";
export { estimateTokens } from "./tokens.js";
export { carriesUsage, UsageSniffer } from "./usage-sniffer.js";
export { JOIN, type Join, joinOf, WITHIN, type Within, withinOf } from "./within.js";
