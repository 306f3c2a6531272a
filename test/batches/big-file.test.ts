import { createBatches } from "@llm-scheduler/batches";
import { createScheduler } from "@llm-scheduler/core";
import { redisBatchStore } from "@llm-scheduler/redis";
import { describe, expect, it } from "vitest";
import { useRedisServer } from "../redis/helpers.js";
import { bigUpload, peakMemory } from "./big-file.js";

/** The size of the generated file, in MB: 20 here; `pnpm bench batches` runs 200. */
const MEGABYTES = Number(process.env.BATCHES_BIG_FILE_MB ?? 20);

const redis = useRedisServer();

describe("a big input file", () => {
  it(`${MEGABYTES} MB streamed into batches.fetch and made a batch line by line, the instance's memory bounded`, async () => {
    const scheduler = createScheduler({ maxConcurrency: 1 });
    const store = redisBatchStore({ url: redis.server.url, prefix: "big:" });
    const batches = createBatches({
      scheduler,
      store,
      execute: async () => ({ status: 200, body: null }),
      maxInFlight: 0,
      tenant: () => "default",
    });
    try {
      const upload = bigUpload(MEGABYTES);
      const { value, rss, live, baseline } = await peakMemory(async () => {
        const request = new Request("http://gateway/v1/files", {
          method: "POST",
          body: upload.body,
          headers: { "content-type": upload.contentType },
          duplex: "half",
        } as RequestInit);
        const answer = await batches.fetch(request);
        const file = (await answer.json()) as { id: string; bytes: number };
        const batch = await batches.createFromFile(file.id, { endpoint: "/v1/chat/completions" });
        return { file, batch };
      });
      expect(value.file.bytes).toBeGreaterThan(MEGABYTES * 1_000_000);
      expect(value.batch.requestCounts.total).toBe(upload.lines);
      const heldMb = (live - baseline) / 1_048_576;
      const rssMb = (rss / 1_048_576).toFixed(0);
      console.log(
        `${MEGABYTES} MB file, ${upload.lines} lines: peak RSS ${rssMb} MB, at most ${heldMb.toFixed(1)} MB live`,
      );
      expect(heldMb).toBeLessThan(16); // a few pages of lines, never the file
    } finally {
      await batches.close();
      await scheduler.close();
      await store.close();
    }
  });
});
