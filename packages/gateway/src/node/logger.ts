import pino, { type Logger } from "pino";
import type { GatewayLog } from "../gateway.js";

/** What a logged error may show: its class, code and message (messages of the library's errors never hold a credential). */
function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return {};
  const code = (error as { code?: unknown }).code;
  return {
    error: {
      name: error.name,
      ...(typeof code === "string" ? { code } : {}),
      message: error.message.slice(0, 300),
    },
  };
}

/**
 * The gateway's pino logger (JSON lines on stdout) and the {@link GatewayLog} on it: one `request` line
 * per proxied request when `access` is on.
 *
 * @example
 * const { logger, log } = gatewayLogger("info", true);
 */
export function gatewayLogger(
  level: string,
  access: boolean,
  destination?: pino.DestinationStream,
): { logger: Logger; log: GatewayLog } {
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
  const log: GatewayLog = {
    ...(access ? { access: (entry) => logger.info(entry, "request") } : {}),
    warn: (message) => logger.warn(message),
    error: (message, error) => logger.error(errorFields(error), message),
  };
  return { logger, log };
}
