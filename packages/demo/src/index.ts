export { type DemoCommand, parseDemoArgs, usage } from "./cli-args.js";
export {
  type GatewayOptions,
  type GatewayServer,
  startFifoGateway,
  startScheduledGateway,
} from "./gateways.js";
export { createHttpTransport, type HttpTransportOptions, promptOf } from "./http-transport.js";
export { bearerOf, type KeyEntry, keyOf, keysFor } from "./keys.js";
export { type PhaseOptions, runPhase } from "./phase.js";
export { checkUpstream, DemoError, type UpstreamCheckOptions } from "./preflight.js";
export { WaitProbe } from "./probe.js";
export { formatProgress, type PhaseProgress, phaseProgress } from "./progress.js";
export { type ForwardOptions, forward } from "./proxy.js";
export { realClock } from "./real-clock.js";
export { type DemoOptions, type DemoOutcome, demoDurationMs, runDemo } from "./run-demo.js";
