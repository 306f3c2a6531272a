import { afterEach, describe, expect, it } from "vitest";
import { runtimesFor, start, stopStarted } from "./start.js";

/**
 * Core and the Hono middleware under Bun and Deno, as their users run them: `server.ts` straight from
 * TypeScript, workspace packages read from their sources (`--conditions=source`; Deno also needs
 * `--sloppy-imports` for the `.js` specifiers that point at `.ts` files). The binaries come inside the
 * `bun` and `deno` npm packages (test/edge-runtimes, installed by the integration tests' setup).
 */
const runtimes = runtimesFor("server.ts");

interface State {
  started: string[];
  running: number;
  queued: number;
  completed: number;
  failed: number;
}

afterEach(stopStarted);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const shapes = [
  ["the middleware", "/v1"],
  ["scheduled(app)", "/app/v1"],
] as const;
const cases = runtimes.flatMap(([name, binary, args]) =>
  shapes.map(([shape, prefix]) => [name, shape, binary, args, prefix] as const),
);

describe.each(cases)("core and the Hono adapter under %s, %s", (_name, _shape, binary, args, v1) => {
  it("serves an interactive request before the waiting batch ones, and gives every slot back", async () => {
    const url = await start(binary, args);
    const work = (id: string, priority: string, ms: number) =>
      fetch(`${url}${v1}/work?ms=${ms}`, { headers: { "x-request-id": id, "x-priority": priority } }).then(
        async (response) => ({ status: response.status, body: await response.json() }),
      );
    const state = async () => (await (await fetch(`${url}/state`)).json()) as State;
    const holder = work("hold", "batch", 400);
    await pause(100);
    const batch = ["b1", "b2", "b3"].map((id) => work(id, "batch", 20));
    await pause(100);
    const chat = work("chat", "interactive", 20);
    await pause(100);
    expect(await state()).toMatchObject({ running: 1, queued: 4 });
    const answers = await Promise.all([holder, ...batch, chat]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.at(-1)?.body).toEqual({ id: "chat", priority: "interactive" });
    const final = await state();
    // One slot: the holder first; then the interactive request jumps the three batch ones queued before it.
    expect(final.started).toEqual(["batch:hold", "interactive:chat", "batch:b1", "batch:b2", "batch:b3"]);
    expect(final).toMatchObject({ running: 0, queued: 0, completed: 5, failed: 0 });
  });

  it("frees the slot of a client that leaves, queued or holding it", async () => {
    const url = await start(binary, args);
    const state = async () => (await (await fetch(`${url}/state`)).json()) as State;
    const holder = new AbortController();
    const holding = fetch(`${url}${v1}/work?ms=5000`, { signal: holder.signal }).catch(
      (error: Error) => error.name,
    );
    await pause(150);
    const waiter = new AbortController();
    const waiting = fetch(`${url}${v1}/work?ms=10`, { signal: waiter.signal }).catch(
      (error: Error) => error.name,
    );
    await pause(150);
    expect(await state()).toMatchObject({ running: 1, queued: 1 });
    waiter.abort();
    holder.abort();
    expect([await holding, await waiting]).toEqual(["AbortError", "AbortError"]);
    // The handler stops when its signal aborts, so the slot comes back long before its 5 s of work.
    const deadline = Date.now() + 2_000;
    let now = await state();
    while (now.running + now.queued > 0 && Date.now() < deadline) {
      await pause(50);
      now = await state();
    }
    expect(now).toMatchObject({ running: 0, queued: 0, failed: 1 });
    const after = await fetch(`${url}${v1}/work?ms=10`, { headers: { "x-request-id": "after" } });
    expect(await after.json()).toEqual({ id: "after", priority: "interactive" });
  });
});
