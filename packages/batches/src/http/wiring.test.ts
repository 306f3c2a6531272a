import { createScheduler, VirtualClock } from "@llm-scheduler/core";
import { afterEach, describe, expect, it } from "vitest";
import { ok, scripted } from "../../test/helpers.js";
import { Batches } from "../batches.js";
import { createBatches } from "../create.js";
import { batchesHandler } from "./handler.js";

const opened: Batches[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
});

function layer(): Batches {
  const scheduler = createScheduler({ clock: new VirtualClock(1_000_000), maxConcurrency: 2 });
  const batches = new Batches({ scheduler, execute: scripted(ok).execute });
  opened.push(batches);
  return batches;
}

describe("batchesHandler: the HTTP layer on top of a batch layer", () => {
  it("serves the routes of a batch layer made without any HTTP option", async () => {
    const batches = layer();
    expect("fetch" in batches).toBe(false);
    const serve = batchesHandler(batches, { tenant: () => "team-a" });
    const created = await batches.create({
      items: [{ customId: "a", url: "/v1/chat/completions", body: {} }],
      tenant: "team-a",
    });
    const listed = await serve(new Request("http://g.test/v1/batches"));
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: Array<{ id: string }> }).data.map((b) => b.id)).toEqual([
      created.id,
    ]);
    const closed = batchesHandler(batches);
    expect((await closed(new Request("http://g.test/v1/batches"))).status).toBe(401);
  });

  it("checks its options at once, by name", () => {
    const batches = layer();
    expect(() => batchesHandler(batches, { maxBodyBytes: 10 })).toThrow(/`maxBodyBytes`/);
    expect(() => batchesHandler(batches, { httpPriority: "nope" })).toThrow(/`httpPriority`/);
    expect(() => batchesHandler(batches, { fileTtlMs: 1 } as never)).toThrow(/fileTtlMs/);
    expect(() => batchesHandler(batches, { tenant: "t" } as never)).toThrow(/`tenant`/);
  });

  it("createBatches takes both layers' options and refuses an invalid HTTP one", () => {
    const scheduler = createScheduler({ clock: new VirtualClock(1_000_000), maxConcurrency: 2 });
    const execute = scripted(ok).execute;
    expect(() => createBatches({ scheduler, execute, httpPriority: "nope" })).toThrow(/`httpPriority`/);
    expect(() => createBatches({ scheduler, execute, maxLineBytes: 1 })).toThrow(/`maxLineBytes`/);
    expect(() => createBatches({ scheduler, execute, nope: 1 } as never)).toThrow(/nope/);
    const served = createBatches({ scheduler, execute, maxBodyBytes: 2_048 });
    opened.push(served);
    expect(typeof served.fetch).toBe("function");
    expect(served).toBeInstanceOf(Batches);
  });
});
