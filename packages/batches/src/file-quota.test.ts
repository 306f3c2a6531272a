import { afterEach, describe, expect, it } from "vitest";
import { advance, hang, ok, scripted, setup } from "../test/helpers.js";
import type { BatchesOptions, ServedBatches } from "./create.js";
import { MemoryBatchStore } from "./memory-store.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const BASE = "http://gateway.test/v1";
const line = (id: string) =>
  JSON.stringify({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model: "m" } });
const lines = (n: number, from = 0) => Array.from({ length: n }, (_, i) => line(`r-${from + i}`)).join("\n");

/** A multipart upload; `fields` come after the file part, as the official clients send them. */
function upload(text: string, key = "key-a", fields: Record<string, string> = {}): Request {
  const form = new FormData();
  form.append("file", new Blob([text], { type: "application/jsonl" }), "input.jsonl");
  form.append("purpose", "batch");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return new Request(`${BASE}/files`, {
    method: "POST",
    body: form,
    headers: { authorization: `Bearer ${key}` },
  });
}

const call = (path: string, init: RequestInit = {}, key = "key-a"): Request =>
  new Request(`${BASE}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

function start(extra: Partial<BatchesOptions> = {}) {
  const { execute } = scripted((context) => (context.item.customId === "hang" ? hang(context) : ok(context)));
  const tenant = (request: Request) => /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  const made = setup(execute, { tenant, ...extra });
  open = made.batches;
  return made;
}

type ErrorBody = { error: { message: string; type: string; code: string | null; param: string | null } };
type FileBody = { id: string; bytes: number; created_at: number; expires_at: number | null };

describe("batches.fetch: input files' quotas and time to live", () => {
  it("refuses a tenant's file past its count with 429 files_quota_exceeded, not another tenant's", async () => {
    const { batches } = start({ maxFilesPerTenant: 2 });
    for (let i = 0; i < 2; i++) expect((await batches.fetch(upload(lines(1)))).status).toBe(200);
    const refused = await batches.fetch(upload(lines(1)));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: {
        message: expect.stringContaining("at most 2 files"),
        type: "invalid_request_error",
        code: "files_quota_exceeded",
        param: "file",
      },
    } satisfies ErrorBody);
    expect((await batches.fetch(upload(lines(1), "key-b"))).status).toBe(200);
  });

  it("refuses the upload that takes a tenant past its bytes, keeps nothing of it, and a delete makes room", async () => {
    const { batches } = start({ maxFileBytesPerTenant: 50_000 });
    const first = (await (await batches.fetch(upload(lines(300)))).json()) as FileBody;
    expect(first.bytes).toBeGreaterThan(25_000);
    const refused = await batches.fetch(upload(lines(300, 300)));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorBody).error.code).toBe("files_quota_exceeded");
    expect((batches.store as MemoryBatchStore).fileBytes).toBe(first.bytes); // nothing of it kept
    expect((await batches.fetch(call(`/files/${first.id}`, { method: "DELETE" }))).status).toBe(200);
    expect((batches.store as MemoryBatchStore).fileBytes).toBe(0);
    expect((await batches.fetch(upload(lines(300, 300)))).status).toBe(200);
  });

  it("answers 503 file_storage_full when the memory store is full, and 413 file_too_large for one file too big", async () => {
    const { batches } = start({
      store: new MemoryBatchStore({ maxTotalFileBytes: 40_000 }),
      maxFileBytes: 60_000,
    });
    const big = await batches.fetch(upload(lines(700)));
    expect(big.status).toBe(413);
    expect(((await big.json()) as ErrorBody).error.code).toBe("file_too_large");
    expect((await batches.fetch(upload(lines(300)))).status).toBe(200);
    const full = await batches.fetch(upload(lines(300), "key-b"));
    expect(full.status).toBe(503);
    expect(((await full.json()) as ErrorBody).error).toMatchObject({
      code: "file_storage_full",
      type: "server_error",
    });
  });

  it("gives every file an expires_at (fileTtlMs, or OpenAI's expires_after cut to it) and refuses a bad one", async () => {
    const { batches } = start({ fileTtlMs: 7_200_000 });
    const plain = (await (await batches.fetch(upload(lines(1)))).json()) as FileBody;
    expect(plain.expires_at).toBe(plain.created_at + 7_200);
    const asked = { "expires_after[anchor]": "created_at", "expires_after[seconds]": "3600" };
    const hour = (await (await batches.fetch(upload(lines(1), "key-a", asked))).json()) as FileBody;
    expect(hour.expires_at).toBe(hour.created_at + 3_600);
    const form = new FormData(); // expires_after before the file works as well as after it
    for (const [name, value] of Object.entries(asked)) form.append(name, value);
    form.append("file", new Blob([lines(1)]), "input.jsonl");
    form.append("purpose", "batch");
    const init = { method: "POST", body: form, headers: { authorization: "Bearer key-a" } };
    const first = (await (await batches.fetch(new Request(`${BASE}/files`, init))).json()) as FileBody;
    expect(first.expires_at).toBe(first.created_at + 3_600);
    const long = { ...asked, "expires_after[seconds]": "2592000" };
    const cut = (await (await batches.fetch(upload(lines(1), "key-a", long))).json()) as FileBody;
    expect(cut.expires_at).toBe(cut.created_at + 7_200);
    for (const bad of [
      { ...asked, "expires_after[seconds]": "60" },
      { ...asked, "expires_after[anchor]": "last_active_at" },
    ]) {
      const refused = await batches.fetch(upload(lines(1), "key-a", bad));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as ErrorBody).error.param).toBe("expires_after");
    }
    expect((batches.store as MemoryBatchStore).fileBytes).toBe(4 * plain.bytes); // the refused ones are gone
  });

  it("an expired file is unreadable at once, deleted by the sweep, and its place comes back", async () => {
    const { batches, clock } = start({ fileTtlMs: 5_000, maxFilesPerTenant: 1 });
    const file = (await (await batches.fetch(upload(lines(2)))).json()) as FileBody;
    await advance(clock, 4_999, 1_000);
    expect((await batches.fetch(call(`/files/${file.id}/content`))).status).toBe(200);
    clock.advance(1);
    expect((await batches.fetch(call(`/files/${file.id}`))).status).toBe(404);
    expect((await batches.fetch(call(`/files/${file.id}/content`))).status).toBe(404);
    const create = { input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" };
    const refused = await batches.fetch(
      call("/batches", {
        method: "POST",
        body: JSON.stringify(create),
        headers: { "content-type": "application/json" },
      }),
    );
    expect(refused.status).toBe(404);
    await advance(clock, 1_000, 1_000); // the runner's sweep
    expect((batches.store as MemoryBatchStore).fileBytes).toBe(0);
    expect(await batches.store.getFile(file.id)).toBeUndefined();
    expect((await batches.fetch(upload(lines(1)))).status).toBe(200);
  });

  it("a batch created from a file keeps its items when the file expires or is deleted while it runs", async () => {
    const { batches, clock } = start({ fileTtlMs: 5_000 });
    const text = `${line("hang")}\n${line("a")}`;
    const file = (await (await batches.fetch(upload(text))).json()) as FileBody;
    const batch = await batches.createFromFile(file.id, {
      endpoint: "/v1/chat/completions",
      tenant: "key-a",
    });
    await advance(clock, 6_000, 1_000);
    expect(await batches.store.getFile(file.id)).toBeUndefined();
    const running = await batches.get(batch.id);
    expect(running).toMatchObject({ status: "in_progress", inputFileId: file.id });
    expect(running?.requestCounts).toMatchObject({ total: 2, completed: 1 });
    await batches.cancel(batch.id);
    expect((await batches.get(batch.id))?.requestCounts).toEqual({ total: 2, completed: 1, failed: 1 });
  });

  it("a file that goes away while a batch is created from it fails the batch rather than start part of it", async () => {
    const { batches } = start();
    const file = (await (await batches.fetch(upload(lines(1_200)))).json()) as FileBody;
    const store = batches.store;
    const read = store.fileLines.bind(store);
    store.fileLines = async (id, from, limit) => {
      if (from >= 500) await store.deleteFile(id);
      return read(id, from, limit);
    };
    const batch = await batches.createFromFile(file.id, {
      endpoint: "/v1/chat/completions",
      tenant: "key-a",
    });
    expect(batch).toMatchObject({ status: "failed", errors: [{ code: "file_not_found" }] });
  });
});

describe("createBatches: file options", () => {
  it("checks the ranges of fileTtlMs, maxFilesPerTenant and maxFileBytesPerTenant", () => {
    expect(() => start({ fileTtlMs: 999 })).toThrow("Expected `fileTtlMs` to be an integer from 1000 to");
    expect(() => start({ maxFilesPerTenant: 0 })).toThrow(
      "Expected `maxFilesPerTenant` to be an integer from 1",
    );
    expect(() => start({ maxFileBytesPerTenant: 1.5 })).toThrow("Expected `maxFileBytesPerTenant`");
    expect(() => new MemoryBatchStore({ maxTotalFileBytes: -1 })).toThrow("Expected `maxTotalFileBytes`");
    expect(() => new MemoryBatchStore({ max: 1 } as never)).toThrow("max");
  });
});
