export {
  type GatewayOptions,
  type GatewayServer,
  startFifoGateway,
} from "./gateways.js";
export { type PhaseOptions, runPhase } from "./phase.js";
export { checkUpstream, DemoError, type UpstreamCheckOptions } from "./preflight.js";
export { WaitProbe } from "./probe.js";
export { formatProgress, type PhaseProgress, phaseProgress } from "./progress.js";
export { type ForwardOptions, forward } from "./proxy.js";
export { realClock } from "./real-clock.js";
export { type DemoOptions, type DemoOutcome, demoDurationMs, runDemo } from "./run-demo.js";
export {
  followWaits,
  type ScheduledGateway,
  type ScheduledGatewayOptions,
  startScheduledGateway,
} from "./scheduled-gateway.js";
