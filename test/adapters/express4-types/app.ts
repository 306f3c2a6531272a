// An Express 4 app as its users write it, type-checked against @types/express 4 by express4-types.test.ts
// (and against Express 5's types by the repository's own typecheck): the adapter's types fit both.
import { createScheduler } from "@llm-scheduler/core";
import { type ExpressRejectionHandler, schedulerMiddleware } from "@llm-scheduler/express";
import express from "express";

const scheduler = createScheduler({ maxConcurrency: 2 });
const onRejected: ExpressRejectionHandler = (error, _req, res) => {
  res.status(429).json({ error: { message: error.message, code: error.code } });
};
const app = express();
app.use(
  "/v1",
  schedulerMiddleware({ scheduler, onRejected, tenant: (req) => req.get("x-team") ?? "anonymous" }),
);
app.post("/v1/chat/completions", (req, res) => {
  const slot = req.llmScheduler;
  res.json({ waited: slot?.waitMs, aborted: res.locals.llmScheduler?.signal.aborted });
});

void app;
