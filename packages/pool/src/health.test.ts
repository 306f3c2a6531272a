import { describe, expect, it } from "vitest";
import { ReplicaHealth } from "./health.js";
import { resolveHealth } from "./options.js";

function setUp() {
  let now = 1_000;
  const changes: boolean[] = [];
  const options = resolveHealth({ failures: 3, ejectMs: 100, maxEjectMs: 300 })!;
  const health = new ReplicaHealth(
    options,
    () => now,
    (healthy) => changes.push(healthy),
  );
  return { health, changes, advance: (ms: number) => (now += ms) };
}

describe("ReplicaHealth", () => {
  it("ejects after consecutive failures only; a success in between resets the count", () => {
    const { health, changes } = setUp();
    health.failure();
    health.failure();
    health.success();
    health.failure();
    health.failure();
    expect(health.healthy).toBe(true);
    health.failure();
    expect(health.healthy).toBe(false);
    expect(health.ejections).toBe(1);
    expect(changes).toEqual([false]);
  });

  it("probes once the ejection has run out, brings the replica back on a pass", () => {
    const { health, changes, advance } = setUp();
    for (let i = 0; i < 3; i++) health.failure();
    expect(health.halfOpen).toBe(false);
    expect(health.beginProbe()).toBeUndefined(); // not due yet
    advance(100);
    expect(health.halfOpen).toBe(true); // due: the next state hangs on the probe
    const probe = health.beginProbe()!;
    expect(health.beginProbe()).toBeUndefined(); // one probe at a time
    expect(health.halfOpen).toBe(true);
    probe(true);
    expect(health.healthy).toBe(true);
    expect(health.halfOpen).toBe(false);
    expect(health.consecutiveFailures).toBe(0);
    expect(changes).toEqual([false, true]);
  });

  it("doubles the ejection after each failed probe, up to maxEjectMs", () => {
    const { health, advance } = setUp();
    for (let i = 0; i < 3; i++) health.failure();
    advance(100);
    health.beginProbe()!(false);
    expect(health.halfOpen).toBe(false); // ejected again, for longer
    expect(health.probeInMs()).toBe(200);
    advance(200);
    health.beginProbe()!(false);
    expect(health.probeInMs()).toBe(300);
    advance(300);
    health.beginProbe()!(true);
    for (let i = 0; i < 3; i++) health.failure();
    expect(health.probeInMs()).toBe(100); // back to the first length after a restore
  });

  it("ignores failures while ejected, and a listener that throws", () => {
    let now = 0;
    const health = new ReplicaHealth(
      resolveHealth({ failures: 1 })!,
      () => now,
      () => {
        throw new Error("listener");
      },
    );
    health.failure();
    health.failure();
    expect(health.ejections).toBe(1);
    now += 5_000;
    health.beginProbe()!(true);
    expect(health.healthy).toBe(true);
  });
});
