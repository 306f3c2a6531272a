import { describe, expect, it } from "vitest";
import { flush, Harness } from "../test/harness.js";
import { HASHED_KEY_PREFIX, shortKey } from "./short-key.js";

const jwt = `Bearer eyJ${"a".repeat(900)}.sig-${"b".repeat(20)}`;

describe("long tenant keys and ids", () => {
  it("keeps short keys and hashes long ones to a stable, recognisable 64-bit key", () => {
    expect(shortKey("team-a")).toBe("team-a");
    expect(shortKey("x".repeat(128))).toBe("x".repeat(128));
    const hashed = shortKey(jwt);
    expect(hashed).toMatch(/^~fnv64:[0-9a-f]{16}$/);
    expect(shortKey(jwt)).toBe(hashed);
    expect(shortKey(`${jwt}!`)).not.toBe(hashed);
    expect(shortKey("x".repeat(129))).not.toBe(shortKey("y".repeat(129)));
  });

  it("runs a task whose tenant and id are a 930-character token, never echoing them", async () => {
    const h = new Harness({
      maxConcurrency: 1,
      priorities: { batch: { maxQueue: 1 } },
      tenants: { [jwt]: { weight: 2 } },
    });
    const seen: string[] = [];
    for (const name of ["queued", "started", "completed", "rejected"] as const) {
      h.scheduler.on(name, (event) => seen.push(JSON.stringify(event)));
    }
    h.submit("a", { tenant: jwt, id: jwt });
    h.submit("b", { tenant: jwt });
    h.submit("c", { tenant: jwt, id: `${jwt}-c` });
    await flush();
    expect(h.errorCode("c")).toBe("QUEUE_FULL");
    const error = h.outcomes.get("c")!.value as Error & { id: string };
    expect(error.message).not.toContain("eyJ");
    expect(error.id.startsWith(HASHED_KEY_PREFIX)).toBe(true);
    expect(JSON.stringify(h.scheduler.metrics())).not.toContain("eyJ");
    expect(h.scheduler.metrics().tenants[0]!.tenant).toBe(shortKey(jwt));
    await h.finishInOrder(2);
    expect(h.startOrder).toEqual(["a", "b"]);
    expect(seen.length).toBeGreaterThan(4);
    for (const event of seen) expect(event).not.toContain("eyJ");
  });

  it("never echoes a long string in a validation message", async () => {
    const h = new Harness({ priorities: { batch: {} } });
    h.submit("x", { priority: jwt });
    h.submit("y", { cost: jwt as unknown as number });
    await flush();
    for (const name of ["x", "y"]) {
      const error = h.outcomes.get(name)!.value as Error;
      expect(error.message).not.toContain("eyJ");
    }
  });
});
