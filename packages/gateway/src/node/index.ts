export { loadConfigFile } from "./config-file.js";
export { gatewayLogger } from "./logger.js";
export { type GatewayExample, runGatewayCli } from "./run-cli.js";
export { type RunningGateway, serveGateway } from "./serve.js";
