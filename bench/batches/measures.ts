// The measurements of the batches part, each in this process: the batch layer in memory against plain
// scheduler.run(), three instances sharing Redis (with Redis's own command counts), and a big file.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createBatches, type Execute, type ServedBatches } from "@llm-scheduler/batches";
import { createScheduler, type Scheduler } from "@llm-scheduler/core";
import { redisBatchStore } from "@llm-scheduler/redis";
import { Redis } from "ioredis";
import { bigUpload, peakMemory, serveBatches } from "../../test/batches/big-file.js";
import { timeIt } from "../lib/timing.js";

/** An upstream that answers at once: what is measured is the batch layer alone. */
export const instant: Execute = async () => ({ status: 200, body: { ok: true } });

const CONCURRENCY = 16;

function items(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    customId: `b-${i}`,
    url: "/v1/chat/completions",
    body: { n: i },
  }));
}

/** Resolves when any of `instances` reports the batch done. */
function whenDone(instances: readonly ServedBatches[], id: () => string): Promise<void> {
  return new Promise((resolve) => {
    for (const batches of instances) batches.on("done", (event) => event.id === id() && resolve());
  });
}

/** Seconds for `n` no-op items through plain `scheduler.run()`, the same executor and concurrency. */
export async function plainRun(n: number): Promise<number> {
  const scheduler = createScheduler({ maxConcurrency: CONCURRENCY });
  const controller = new AbortController();
  const item = { index: 0, customId: "x", method: "POST", url: "/v1/x", body: null };
  const elapsed = await timeIt(() =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        scheduler.run(({ signal }) => instant({ item, batchId: "b", attempt: 1, signal }), {
          priority: "batch",
          tenant: "t",
          id: `b:${i}`,
          timeoutMs: 600_000,
          signal: controller.signal,
        }),
      ),
    ),
  );
  await scheduler.close();
  return elapsed / 1000;
}

/** Seconds for a batch of `n` items through the batch layer with the in-memory store. */
export async function memoryBatch(n: number): Promise<number> {
  const scheduler = createScheduler({ maxConcurrency: CONCURRENCY });
  const batches = createBatches({ scheduler, execute: instant, maxInFlight: 64 });
  let id = "";
  const done = whenDone([batches], () => id);
  const elapsed = await timeIt(async () => {
    id = (await batches.create({ items: items(n) })).id;
    await done;
  });
  await batches.close();
  await scheduler.close();
  return elapsed / 1000;
}

/** Calls Redis has served so far, all commands together (INFO commandstats). */
async function commandCalls(admin: Redis): Promise<number> {
  const info = await admin.info("commandstats");
  let total = 0;
  for (const match of info.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

/** A batch of `n` items run by three instances sharing one Redis: seconds, and Redis commands per item. */
export async function redisBatch(
  url: string,
  n: number,
  prefix: string,
): Promise<{ seconds: number; commandsPerItem: number }> {
  const admin = new Redis(url);
  const instances: Array<{ scheduler: Scheduler; batches: ServedBatches; close: () => Promise<void> }> = [];
  for (let i = 0; i < 3; i++) {
    const scheduler = createScheduler({ maxConcurrency: CONCURRENCY });
    const store = redisBatchStore({ url, prefix });
    const batches = createBatches({ scheduler, store, execute: instant, maxInFlight: 64, pollMs: 200 });
    const close = async () => {
      await batches.close();
      await scheduler.close();
      await store.close();
    };
    instances.push({ scheduler, batches, close });
  }
  await Promise.all(instances.map(({ batches }) => batches.list({ limit: 1 }))); // connected
  let id = "";
  const done = whenDone(
    instances.map((instance) => instance.batches),
    () => id,
  );
  const before = await commandCalls(admin);
  const elapsed = await timeIt(async () => {
    id = (await instances[0]!.batches.create({ items: items(n) })).id;
    await done;
  });
  const calls = (await commandCalls(admin)) - before - 1; // the INFO call itself
  for (const instance of instances) await instance.close();
  await admin.quit();
  return { seconds: elapsed / 1000, commandsPerItem: calls / n };
}

async function uploadDirect(
  batches: ServedBatches,
  megabytes: number,
): Promise<{ id: string; bytes: number }> {
  const upload = bigUpload(megabytes);
  const init = {
    method: "POST",
    body: upload.body,
    headers: { "content-type": upload.contentType },
    duplex: "half",
  };
  const answer = await batches.fetch(new Request("http://gateway/v1/files", init as RequestInit));
  const file = (await answer.json()) as { id: string; bytes: number };
  if (answer.status !== 200) throw new Error(`upload failed: ${answer.status} ${JSON.stringify(file)}`);
  return file;
}

/** The upload from a child process, so that the client's buffers do not count in this process. */
async function uploadFromChild(url: string, megabytes: number): Promise<{ id: string; bytes: number }> {
  const client = fileURLToPath(new URL("./upload-client.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", client, url, String(megabytes)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const [code] = (await once(child, "exit")) as [number];
  if (code !== 0) throw new Error(`the upload client exited with ${code}`);
  const file = JSON.parse(text) as { id?: string; bytes: number };
  if (file.id === undefined) throw new Error(`upload failed: ${text.slice(0, 300)}`);
  return file as { id: string; bytes: number };
}

/** A big file uploaded and made a batch: through batches.fetch directly, or through Node's HTTP server. */
export async function bigFile(url: string, megabytes: number, viaHttp: boolean) {
  const scheduler = createScheduler({ maxConcurrency: 1 });
  const store = redisBatchStore({ url, prefix: `big${viaHttp ? "http" : "web"}:` });
  const batches = createBatches({
    scheduler,
    store,
    execute: instant,
    maxInFlight: 0,
    maxFileBytes: 300 * 1_048_576,
    tenant: () => "default",
  });
  const served = viaHttp ? await serveBatches(batches) : undefined;
  const measured = await peakMemory(async () => {
    const file =
      served === undefined
        ? await uploadDirect(batches, megabytes)
        : await uploadFromChild(served.url, megabytes);
    const batch = await batches.createFromFile(file.id, { endpoint: "/v1/chat/completions" });
    return { bytes: file.bytes, lines: batch.requestCounts.total };
  });
  served?.server.close();
  await batches.close();
  await scheduler.close();
  await store.close();
  return {
    ...measured.value,
    rssMb: measured.rss / 1_048_576,
    liveMb: (measured.live - measured.baseline) / 1_048_576,
  };
}
