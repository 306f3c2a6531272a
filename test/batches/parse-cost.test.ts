import { monitorEventLoopDelay } from "node:perf_hooks";
import { createBatches, MemoryBatchStore } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";
import { afterAll, describe, expect, it } from "vitest";
import { serveBatches } from "./big-file.js";
import { jsonlOf, uploadBody, uploadCpuMs } from "./parse-cost.js";

const MB = 1_048_576;
const SIZE = Math.round(9.5 * MB);

const scheduler = createScheduler({ maxConcurrency: 1 });
const batches = createBatches({
  scheduler,
  store: new MemoryBatchStore(),
  execute: async () => ({ status: 200, body: null }),
  maxInFlight: 0,
  tenant: () => "t",
});
afterAll(async () => {
  await batches.close();
  await scheduler.close();
});

describe("uploads parse in linear time", () => {
  it("a 9.5 MB line costs, per MB, within 2x of short lines (same run, best of 3)", async () => {
    const short = jsonlOf(SIZE, 1_024);
    const long = jsonlOf(SIZE, SIZE);
    const shortMs: number[] = [];
    const longMs: number[] = [];
    for (let round = 0; round < 3; round++) {
      shortMs.push(await uploadCpuMs(batches, short));
      longMs.push(await uploadCpuMs(batches, long));
    }
    const ratio = Math.min(...longMs) / Math.min(...shortMs);
    console.log(
      `9.5 MB upload CPU: short lines ${Math.min(...shortMs).toFixed(0)} ms, one line ${Math.min(...longMs).toFixed(0)} ms, ratio ${ratio.toFixed(2)}`,
    );
    // the goal is 2x; the bound leaves room for a busy machine (before the fix: about 21x)
    expect(ratio).toBeLessThan(3);
  });

  it("two 9.5 MB lines uploaded and made batches at once over HTTP leave the event loop free", async () => {
    const { url, server } = await serveBatches(batches);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    try {
      const file = jsonlOf(SIZE, SIZE);
      delay.enable();
      const answers = await Promise.all(
        [0, 1].map(() => {
          const { body, contentType } = uploadBody(file);
          return fetch(`${url}/v1/files`, {
            method: "POST",
            body,
            headers: { "content-type": contentType },
            duplex: "half",
          } as RequestInit);
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const ids = await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id));
      const created = await Promise.all(
        ids.map((id) =>
          fetch(`${url}/v1/batches`, {
            method: "POST",
            body: JSON.stringify({
              input_file_id: id,
              endpoint: "/v1/chat/completions",
              completion_window: "24h",
            }),
          }),
        ),
      );
      delay.disable();
      expect(
        await Promise.all(created.map(async (c) => ((await c.json()) as { status: string }).status)),
      ).toEqual(["in_progress", "in_progress"]);
      const maxMs = delay.max / 1e6;
      console.log(
        `longest event-loop stall while two 9.5 MB lines are uploaded and made batches: ${maxMs.toFixed(0)} ms`,
      );
      // the goal is 100 ms; the bound leaves room for a busy machine (before the fix: 2.1 s)
      expect(maxMs).toBeLessThan(400);
    } finally {
      server.close();
    }
  });
});
