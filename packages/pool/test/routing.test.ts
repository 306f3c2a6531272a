import type { Upstream } from "@llm-scheduler/upstream-sim";
import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool, type PoolOptions } from "../src/index.js";
import { jsonHeaders, startReplicaSims } from "./helpers.js";

let sims: Upstream[] = [];
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  await Promise.all(sims.map((sim) => sim.close()));
  pool = undefined;
  sims = [];
});

async function start(count: number, options: Omit<PoolOptions, "replicas"> = {}): Promise<Pool> {
  sims = await startReplicaSims(count, { ttftMs: 1, tokenMs: 1 });
  pool = createPool({
    replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: 4 })),
    health: false,
    signals: false,
    ...options,
  });
  return pool;
}

const ask = (system: string, question: string, extra: object = {}) =>
  JSON.stringify({
    model: "sim-model",
    messages: [
      { role: "system", content: system },
      { role: "user", content: question },
    ],
    max_tokens: 2,
    ...extra,
  });

/** Sends one request and reads its answer whole; returns the id of the replica that served it. */
async function served(p: Pool, body: string | Uint8Array<ArrayBuffer>, init: object = {}): Promise<string> {
  const before = p.metrics().replicas.map((r) => r.sent);
  const response = await p.fetch("/v1/chat/completions", {
    method: "POST",
    headers: jsonHeaders,
    body,
    ...init,
  });
  await response.text();
  const after = p.metrics().replicas;
  const moved = after.filter((r, i) => r.sent > before[i]!);
  expect(moved).toHaveLength(1);
  return moved[0]!.id;
}

describe("routing in the pool", () => {
  it("sends requests that share a system prompt to one replica under light load, and spreads other prompts", async () => {
    const p = await start(4, { routingKey: { firstMessages: 0 } });
    const tax = "You are the tax assistant of ACME. Answer from the 2026 rules only.";
    const first = await served(p, ask(tax, "Can I deduct my home office?"));
    for (const question of ["And my car?", "What about a laptop?", "Travel costs?"]) {
      expect(await served(p, ask(tax, question))).toBe(first);
    }
    const used = new Set<string>();
    for (let i = 0; i < 16; i++) used.add(await served(p, ask(`You are assistant number ${i}.`, "Hi")));
    expect(used.size).toBeGreaterThan(1);
  });

  it("keys a conversation on its system prompt and first message by default, and on `user` when given", async () => {
    const p = await start(4);
    const system = "You are a careful travel planner.";
    const opening = JSON.parse(ask(system, "Plan a week in Lisbon.")) as { messages: object[] };
    const later = JSON.stringify({
      ...opening,
      messages: [
        ...opening.messages,
        { role: "assistant", content: "Day 1: ..." },
        { role: "user", content: "More?" },
      ],
    });
    const replica = await served(p, JSON.stringify(opening));
    expect(await served(p, later)).toBe(replica);
    expect(await served(p, new TextEncoder().encode(later))).toBe(replica); // bytes are read as well
    const alice = await served(p, ask("one prompt", "a", { user: "alice" }));
    expect(await served(p, ask("another prompt entirely", "b", { user: "alice" }))).toBe(alice);
  });

  it("never fails a request over its body or a key function that throws, and a given routingKey wins", async () => {
    const p = await start(2, {
      routingKey: (body) => {
        if ((body as { explode?: boolean } | undefined)?.explode) throw new Error("key function failed");
        return "fixed";
      },
    });
    for (const body of ["not json {", "{ broken", "[1, 2]", "", JSON.stringify({ explode: true })]) {
      const response = await p.fetch("/v1/chat/completions", { method: "POST", headers: jsonHeaders, body });
      expect(response.status).toBeGreaterThanOrEqual(200); // an answer from the replica, not a rejection
      await response.text();
    }
    const keyed = await served(p, ask("s", "q"));
    expect(await served(p, ask("t", "r"))).toBe(keyed); // the function's fixed key
    const chosen = new Set<string>();
    for (let i = 0; i < 8; i++) chosen.add(await served(p, ask("s", "q"), { routingKey: `session-${i}` }));
    expect(chosen).toEqual(new Set(["r0", "r1"])); // the given keys, not the function's one key
  });

  it("takes a router by name, and falls back to the least loaded replica when a Router throws", async () => {
    const p = await start(3, { routing: "round-robin" });
    const order = [];
    for (let i = 0; i < 3; i++) order.push(await served(p, ask("same", "same")));
    expect(order).toEqual(["r0", "r1", "r2"]);
    await p.close();
    await Promise.all(sims.map((sim) => sim.close()));
    const broken = await start(2, {
      routing: {
        pick: () => {
          throw new Error("router failed");
        },
      },
    });
    expect(await served(broken, ask("a", "b"))).toBe("r0");
  });

  it("refuses a routing that is neither a known name nor a Router, and bad routingKey options", () => {
    const replicas = [{ url: "http://127.0.0.1:1", maxConcurrency: 1 }];
    const off = { health: false, signals: false } as const;
    expect(() => createPool({ replicas, routing: "random" as never, ...off })).toThrow(
      'Expected `routing` to be one of "prefix", "least-loaded", "round-robin", or a Router',
    );
    expect(() => createPool({ replicas, routing: ((r: never) => r) as never, ...off })).toThrow(
      "Expected `routing` to be one of",
    );
    expect(() => createPool({ replicas, routingKey: 3 as never, ...off })).toThrow(
      "Expected `routingKey` to be routing-key options, a function or `false`",
    );
    expect(() => createPool({ replicas, routingKey: { prefixChars: 1 }, ...off })).toThrow(
      "Expected `prefixChars` to be an integer from 16",
    );
  });
});
