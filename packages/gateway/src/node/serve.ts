import { watch } from "node:fs";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { DestinationStream, Logger } from "pino";
import { ConfigError } from "../config/errors.js";
import type { ResolvedConfig } from "../config/resolve.js";
import { createGateway, type Gateway } from "../gateway.js";
import { loadConfigFile } from "./config-file.js";
import { gatewayLogger } from "./logger.js";
import { storesOf } from "./stores.js";

/** A gateway listening on Node. */
export interface RunningGateway {
  readonly gateway: Gateway;
  readonly url: string;
  readonly logger: Logger;
  /** Reads the file again and applies it; a bad file is refused (one log line) and the old config keeps serving. */
  reload(): Promise<void>;
  /** Stops accepting, drains up to `drainTimeoutMs`, gives batch items back, closes stores. */
  close(): Promise<void>;
}

/** Listens, or rejects with a one-line {@link ConfigError} (a taken port, an address that cannot be used). */
function listen(
  server: ReturnType<typeof createAdaptorServer>,
  host: string,
  port: number,
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "is taken" : "cannot be used";
      reject(
        new ConfigError(`listen: ${host}:${port} ${why} (${error.code ?? error.message})`, { cause: error }),
      );
    });
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

/**
 * Serves a configuration on Node with `@hono/node-server`: JSON-lines logs (pino), hot reload of `file`
 * on change and on SIGHUP (with `signals`), SIGTERM and SIGINT drain and exit 0.
 *
 * @example
 * const running = await serveGateway(await loadConfigFile("gateway.yaml"), { file: "gateway.yaml", signals: true });
 */
export async function serveGateway(
  config: ResolvedConfig,
  options: {
    readonly file?: string;
    readonly signals?: boolean;
    readonly onClosed?: () => void;
    /** Where the JSON lines go. @default stdout */
    readonly logTo?: DestinationStream;
  } = {},
): Promise<RunningGateway> {
  const { logger, log } = gatewayLogger(config.log.level, config.log.access, options.logTo);
  const stores = storesOf(config);
  const gateway = createGateway(config, { log, ...stores });
  const server = createAdaptorServer({ fetch: gateway.fetch });
  try {
    const address = await listen(server, config.listen.host, config.listen.port);
    const host = address.address.includes(":") ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}`;
    logger.info({ url, models: [...config.models.keys()] }, "listening");
    const { file } = options;
    let reloading = Promise.resolve();
    const reload = () => {
      reloading = reloading.then(async () => {
        if (file === undefined) return;
        try {
          await gateway.reload(await loadConfigFile(file));
          logger.info({ models: [...gateway.models().keys()] }, "configuration reloaded");
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          logger.error(`reload refused, the previous configuration keeps serving: ${message}`);
        }
      });
      return reloading;
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const watcher =
      file === undefined
        ? undefined
        : watch(file, () => {
            clearTimeout(timer);
            timer = setTimeout(() => void reload(), 100);
          });
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        logger.info({ drainTimeoutMs: gateway.config().drainTimeoutMs }, "draining");
        watcher?.close();
        clearTimeout(timer);
        server.close();
        await gateway.close();
        await stores.close();
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        logger.info("stopped");
        logger.flush();
        options.onClosed?.();
      })();
      return closing;
    };
    if (options.signals === true) {
      process.on("SIGHUP", () => void reload());
      process.once("SIGTERM", () => void close());
      process.once("SIGINT", () => void close());
    }
    return { gateway, url, logger, reload, close };
  } catch (error) {
    await gateway.close(0);
    await stores.close();
    throw error;
  }
}
