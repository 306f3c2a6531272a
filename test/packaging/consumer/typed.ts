// TypeScript with `module`/`moduleResolution: nodenext`, as a user writes it: the packaging test
// type-checks this file against the installed tarballs, then runs it with Bun.

import Router from "@koa/router";
import { createScheduler, type Scheduler, SchedulerError, type SchedulerOptions } from "@llm-scheduler/core";
import { HeaderNames, MemoryStore, type Store } from "@llm-scheduler/core/kit";
import {
  schedulerMiddleware as expressMiddleware,
  type SchedulerRequestHandler,
} from "@llm-scheduler/express";
import { schedulerMiddleware as honoMiddleware, type LlmSchedulerEnv } from "@llm-scheduler/hono";
import { schedulerMiddleware as koaMiddleware, type LlmSchedulerState } from "@llm-scheduler/koa";
import { RedisStore, type RedisStoreOptions } from "@llm-scheduler/redis";
import { fixedKeys } from "@llm-scheduler/redis/layout";
import type { Request, Response } from "express";
import { Hono } from "hono";

const options: SchedulerOptions = {
  maxConcurrency: 2,
  priorities: { interactive: { weight: 5 }, batch: { weight: 1 } },
};
const store: Store = new MemoryStore();
const scheduler: Scheduler = createScheduler({ ...options, store });

const onExpress: SchedulerRequestHandler = expressMiddleware({ scheduler });
const expressHandler = (req: Request, res: Response): void => {
  res.send(req.llmScheduler?.priority ?? "none");
};

const router = new Router<LlmSchedulerState>();
router.get("/", koaMiddleware({ scheduler }), (ctx) => {
  ctx.body = ctx.state.llmScheduler.priority;
});

const app = new Hono<LlmSchedulerEnv>();
app.use(honoMiddleware({ scheduler }));
app.get("/", (c) => c.text(c.get("llmScheduler").priority));

const redisOptions: RedisStoreOptions = { prefix: "typed:", leaseMs: 10_000 };
const stateKey: string = fixedKeys(redisOptions.prefix ?? "llm:").state;

const answer: number = await scheduler.run(async ({ signal }) => (signal.aborted ? 0 : 42), {
  priority: "interactive",
  tenant: "team-a",
});
const response = await app.request("/", { headers: { [HeaderNames.priority]: "batch" } });
const hono = `${response.status} ${await response.text()}`; // the slot is held until the body is read
let optionCode = "accepted";
try {
  new RedisStore({ leaseMs: 0 });
} catch (error) {
  optionCode = error instanceof SchedulerError ? error.code : "another SchedulerError";
}
await scheduler.close();

console.log(
  JSON.stringify({
    core: answer,
    hono,
    express: typeof onExpress === "function" && typeof expressHandler === "function",
    koa: router.stack.length,
    stateKey,
    redisOptions: optionCode,
  }),
);
