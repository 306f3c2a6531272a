import { getRequestListener } from "@hono/node-server";
import { runAdapterContract } from "./contract.js";
import { honoContractApp } from "./hono-app.js";
import { serveListener } from "./serve.js";

// As `serve()` runs it: the Node response reaches the middleware as `c.env.outgoing`.
runAdapterContract("hono on @hono/node-server", async (setup) => {
  const app = honoContractApp(setup);
  return serveListener(getRequestListener(app.fetch));
});

// As a runtime without Node bindings would (Bun, Deno, workers): only the web Request and Response.
runAdapterContract("hono on @hono/node-server, web standards only", async (setup) => {
  const app = honoContractApp(setup);
  return serveListener(getRequestListener((request) => app.fetch(request)));
});
