import { afterAll, describe, expect, it } from "vitest";
import { type Instance, instance, sleep, useRedisServer } from "./helpers.js";

const redis = useRedisServer();
const COUNT = 3;
let gateways: Instance[] = [];

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

describe("the drain rate with several instances on one Redis", () => {
  it("is the global start rate on every instance, so retry hints are not COUNT times too long", async () => {
    gateways = Array.from({ length: COUNT }, () =>
      instance(
        redis.server.url,
        { prefix: "drain:", leaseMs: 3_000 },
        { maxConcurrency: 3, priorities: { batch: { queueTimeoutMs: 20_000 } } },
      ),
    );
    const own = gateways.map(() => 0);
    const started = performance.now();
    // Three workers per instance keep nine tasks of 20 ms in front of a global limit of three.
    await Promise.all(
      gateways.flatMap((gateway, g) =>
        Array.from({ length: 3 }, async () => {
          while (performance.now() - started < 2_000) {
            await gateway.scheduler.run(async () => {
              own[g]!++;
              await sleep(20);
            });
          }
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1_000;
    const global = own.reduce((a, b) => a + b, 0) / seconds;

    for (const [g, gateway] of gateways.entries()) {
      const measured = gateway.store.drainRate("batch");
      const ownRate = own[g]! / seconds;
      expect(measured, `instance ${g}`).toBeDefined();
      expect(measured!).toBeGreaterThan(global * 0.6);
      expect(measured!).toBeLessThan(global * 1.5);
      // the time 30 queued tasks take to drain, by the global rate and by this instance's own
      const hint = 30 / measured!;
      expect(hint * 2).toBeLessThan(30 / ownRate);
    }
    expect(gateways[0]!.store.drainRate("unknown")).toBeUndefined();
  });
});
