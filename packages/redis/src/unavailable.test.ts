import { createScheduler, SchedulerError } from "@llm-scheduler/core";
import { describe, expect, it } from "vitest";
import { addressOf, type Connection } from "./connection.js";
import { RedisStore } from "./redis-store.js";

describe("STORE_UNAVAILABLE while Redis cannot be reached", () => {
  it("names Redis's address, never the URL's password, and keeps the connection error as its cause", async () => {
    const errors: unknown[] = [];
    // Port 1 refuses at once: nothing listens there.
    const store = new RedisStore({
      url: "redis://:secret@127.0.0.1:1",
      commandTimeoutMs: 200,
      onError: (error) => errors.push(error),
    });
    const scheduler = createScheduler({ maxConcurrency: 1, store });
    scheduler.on("error", () => {});
    try {
      const failures = [];
      for (let i = 0; i < 2; i++) {
        failures.push(await scheduler.run(async () => "ran").catch((e) => e));
      }
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(SchedulerError);
        const error = failure as SchedulerError;
        expect(error.code).toBe("STORE_UNAVAILABLE");
        expect(error.message).toContain("127.0.0.1:1");
        expect(error.message).toContain("ECONNREFUSED");
        expect(error.message).not.toContain("secret");
        expect((error.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
      }
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await scheduler.close();
    }
  });
});

describe("addressOf", () => {
  it("names a cluster's nodes without their credentials", () => {
    const urls = ["redis://user:secret@10.0.0.1:7000", "rediss://:secret@10.0.0.2"];
    expect(addressOf({} as Connection, urls)).toBe("cluster 10.0.0.1:7000, 10.0.0.2:6379");
  });
});
