import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ContractApp } from "./contract.js";

/** Listens on 127.0.0.1, port 0; `close()` also drops kept-alive and still-open connections. */
export async function listen(server: Server): Promise<ContractApp & { url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    fetch: (path, init) => fetch(`${url}${path}`, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A Node server for a request listener (Express's app, Koa's callback), on a free port. */
export function serveListener(listener: RequestListener): Promise<ContractApp & { url: string }> {
  return listen(createServer(listener));
}
