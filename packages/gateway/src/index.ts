export type { AccessEntry, AccessLog } from "./access-log.js";
export { ConfigError } from "./config/errors.js";
export { type GatewayConfig, gatewayJsonSchema } from "./config/json-schema.js";
export type { ResolvedKey } from "./config/keys-config.js";
export type { PassPriority, ResolvedModel, ResolvedPoolSection } from "./config/models-config.js";
export { parseConfig, type ResolvedConfig, resolveConfig } from "./config/resolve.js";
export { createGateway, type Gateway, type GatewayLog, type GatewayOptions } from "./gateway.js";
