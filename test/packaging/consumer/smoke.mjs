// Plain Node ESM, as a user writes it after `npm i @llm-scheduler/core @llm-scheduler/express ...`:
// one task through each published package, printed as one JSON line that the packaging test checks.
import { createScheduler, isSchedulerError, SchedulerError } from "@llm-scheduler/core";
import { HeaderNames, rejectUnknownKeys } from "@llm-scheduler/core/kit";
import { schedulerMiddleware as expressMiddleware } from "@llm-scheduler/express";
import { schedulerMiddleware as honoMiddleware } from "@llm-scheduler/hono";
import { schedulerMiddleware as koaMiddleware } from "@llm-scheduler/koa";
import { RedisStore } from "@llm-scheduler/redis";
import { scriptSource } from "@llm-scheduler/redis/layout";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";

const scheduler = createScheduler({ maxConcurrency: 2 });

async function overHttp(handler) {
  const { createServer } = await import("node:http");
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${server.address().port}/`, {
      headers: { [HeaderNames.priority]: "batch" },
    });
    return `${response.status} ${await response.text()}`;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

function expressApp() {
  const app = express();
  app.get("/", expressMiddleware({ scheduler }), (req, res) => res.send(req.llmScheduler.priority));
  return app;
}

function koaApp() {
  const app = new Koa();
  app.use(koaMiddleware({ scheduler }));
  app.use((ctx) => {
    ctx.body = ctx.state.llmScheduler.priority;
  });
  return app.callback();
}

async function honoAnswer() {
  const app = new Hono();
  app.use(honoMiddleware({ scheduler }));
  app.get("/", (c) => c.text(c.get("llmScheduler").priority));
  const response = await app.request("/", { headers: { [HeaderNames.priority]: "batch" } });
  return `${response.status} ${await response.text()}`;
}

function unknownKeyCode() {
  try {
    rejectUnknownKeys("options", { maxConcurency: 1 }, ["maxConcurrency"]);
    return "accepted";
  } catch (error) {
    return isSchedulerError(error) ? error.code : "not a SchedulerError";
  }
}

async function throughRedis(url) {
  if (url === undefined) return "no REDIS_URL";
  const store = new RedisStore({ url, prefix: `smoke:${Date.now()}:` });
  const shared = createScheduler({ maxConcurrency: 1, store });
  try {
    return await shared.run(() => "ran through redis", { priority: "batch" });
  } finally {
    await shared.close();
    await store.close();
  }
}

function redisOptionError() {
  try {
    new RedisStore({ leaseMs: 0 });
    return "accepted";
  } catch (error) {
    // one copy of core is installed: the store's error is the class the user imports
    return error instanceof SchedulerError ? error.code : "another SchedulerError";
  }
}

const result = {
  core: await scheduler.run(() => 6 * 7),
  kit: unknownKeyCode(),
  express: await overHttp(expressApp()),
  koa: await overHttp(koaApp()),
  hono: await honoAnswer(),
  redisLua: scriptSource("release").includes("KEYS"),
  redisOptions: redisOptionError(),
  redis: await throughRedis(process.env.REDIS_URL),
};
await scheduler.close();
console.log(JSON.stringify(result));
