// `pnpm gateway [--config FILE] [--check]`: the gateway's command line; without --config, the
// embedded example on local upstream simulators.
import { runGatewayCli } from "@llm-scheduler/gateway/node";
import { startGatewayExample } from "./gateway-example.js";

await runGatewayCli(process.argv.slice(2), startGatewayExample);
