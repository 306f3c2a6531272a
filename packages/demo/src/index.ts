export {
  type GatewayOptions,
  type GatewayServer,
  startFifoGateway,
  startScheduledGateway,
} from "./gateways.js";
export { type PhaseOptions, runPhase } from "./phase.js";
export { type DemoOptions, type DemoOutcome, runDemo } from "./run-demo.js";
