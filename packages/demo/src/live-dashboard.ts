import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Scheduler } from "@llm-scheduler/core";
import { createDashboard } from "@llm-scheduler/dashboard";
import { toNodeHandler } from "@llm-scheduler/dashboard/node";

/** The live dashboard of the demo's scheduler, on its own port, up from the start to the end. */
export interface LiveDashboard {
  /** The page's address, e.g. `http://127.0.0.1:40123/dashboard`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `scheduler`'s live dashboard on 127.0.0.1 (a free port), read-only and open: it shows the
 * demo's made-up tenants to whoever runs it. It outlives the gateways, so the page stays up for the
 * whole run and after it.
 *
 * @example
 * const dashboard = await startLiveDashboard(scheduler);
 * console.log(`live dashboard: ${dashboard.url}`);
 */
export async function startLiveDashboard(scheduler: Scheduler): Promise<LiveDashboard> {
  const dashboard = createDashboard({ scheduler, access: "open", intervalMs: 500 });
  const server = createServer(toNodeHandler(dashboard));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${dashboard.path}`,
    close: () => {
      dashboard.close();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Resolves once the person at the terminal is done: Enter, end of input, or Ctrl-C (SIGINT, which then
 * does not end the process at once: the caller closes what it opened).
 *
 * @example
 * await untilDismissed(process.stdin);
 */
export function untilDismissed(input: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      input.off("data", done);
      input.off("end", done);
      input.pause();
      resolve();
    };
    process.once("SIGINT", done);
    input.once("data", done);
    input.once("end", done);
    input.resume();
  });
}
