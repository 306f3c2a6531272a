import { scheduled, schedulerMiddleware } from "@llm-scheduler/express";
import express, { type Express, type Request } from "express";
import express4 from "express4";
import { type ContractSetup, runAdapterContract } from "./contract.js";
import { serveListener } from "./serve.js";

function slotOf(req: Request) {
  if (req.llmScheduler === undefined) throw new Error("the scheduler middleware did not run");
  return req.llmScheduler;
}

async function startExpressApp(
  createApp: typeof express,
  { scheduler, probe, timeoutMs, mapped, customRejection }: ContractSetup,
) {
  const app = createApp();
  app.use(
    schedulerMiddleware({
      scheduler,
      timeoutMs,
      ...(mapped && {
        priority: async (req) => {
          if (req.get("x-plan") === "broken") throw new Error("no plan");
          return req.get("x-plan") === "free" ? "batch" : "interactive";
        },
        tenant: (req) => req.get("x-tenant") ?? "anonymous",
      }),
      ...(customRejection && {
        onRejected: (error, _req, res) => {
          res.status(529).set("x-rejected-by", "onRejected").type("text").send(`rejected: ${error.code}`);
        },
      }),
    }),
  );
  routes(app, probe);
  return serveListener(app);
}

/** The same app scheduled from outside with `scheduled(app)`: the mappings read Node's request. */
async function startScheduledApp(
  createApp: typeof express,
  { scheduler, probe, timeoutMs, mapped, customRejection }: ContractSetup,
) {
  const app = createApp();
  routes(app, probe);
  const header = (req: { headers: Record<string, unknown> }, name: string) =>
    typeof req.headers[name] === "string" ? (req.headers[name] as string) : undefined;
  return serveListener(
    scheduled(app, {
      scheduler,
      timeoutMs,
      ...(mapped && {
        priority: async (req) => {
          if (header(req, "x-plan") === "broken") throw new Error("no plan");
          return header(req, "x-plan") === "free" ? "batch" : "interactive";
        },
        tenant: (req) => header(req, "x-tenant") ?? "anonymous",
      }),
      ...(customRejection && {
        onRejected: (error, _req, res) => {
          res
            .writeHead(529, { "x-rejected-by": "onRejected", "content-type": "text/plain" })
            .end(`rejected: ${error.code}`);
        },
      }),
    }),
  );
}

function routes(app: Express, probe: ContractSetup["probe"]): void {
  app.get("/slot", (req, res) => {
    const slot = slotOf(req);
    probe.enter(slot);
    const { id, priority, tenant, waitMs } = res.locals.llmScheduler!;
    res.json({ id, priority, tenant, waitMs });
  });
  app.get("/wait", async (req, res) => {
    const slot = slotOf(req);
    probe.enter(slot);
    const outcome = await probe.hold(slot);
    // After an abort the middleware may have answered already (a run timeout's 504): end the response
    // all the same, which tells the middleware this handler's work is over.
    if (res.headersSent) res.end();
    else res.status(outcome === "released" ? 200 : 504).send(outcome);
  });
  app.get("/stream", async (req, res) => {
    const slot = slotOf(req);
    probe.enter(slot);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for await (const event of probe.sse(slot)) res.write(event);
    res.end();
  });
  app.get("/throw", (req) => {
    probe.enter(slotOf(req));
    throw new Error("handler failed");
  });
  app.get("/hang", (req) => {
    probe.enter(slotOf(req));
  });
  app.get("/broken", async (req, res) => {
    const slot = slotOf(req);
    probe.enter(slot);
    res.writeHead(200, { "content-type": "text/event-stream" });
    for await (const event of probe.sse(slot)) {
      res.write(event);
      res.destroy(new Error("the upstream broke")); // a response broken midway
      return;
    }
  });
  app.post("/echo", async (req, res) => {
    probe.enter(slotOf(req));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    res.type("text").send(Buffer.concat(chunks).toString("utf8"));
  });
}

runAdapterContract("express 5", (setup) => startExpressApp(express, setup));
runAdapterContract("express 4", (setup) => startExpressApp(express4, setup));
runAdapterContract("express 5 scheduled(app)", (setup) => startScheduledApp(express, setup));
runAdapterContract("express 4 scheduled(app)", (setup) => startScheduledApp(express4, setup));
