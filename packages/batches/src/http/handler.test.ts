import { afterEach, describe, expect, it } from "vitest";
import { advance, hang, ok, scripted, setup } from "../../test/helpers.js";
import type { ServedBatches } from "../create.js";

let open: ServedBatches | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const BASE = "http://gateway.test/v1";
const line = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    custom_id: id,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "m" },
    ...extra,
  });

function uploadRequest(text: string, purpose = "batch", key = "key-a"): Request {
  const form = new FormData();
  form.append("file", new Blob([text], { type: "application/jsonl" }), "input.jsonl");
  form.append("purpose", purpose);
  return new Request(`${BASE}/files`, {
    method: "POST",
    body: form,
    headers: { authorization: `Bearer ${key}` },
  });
}

const call = (path: string, init: RequestInit = {}, key = "key-a"): Request =>
  new Request(`${BASE}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

const json = (body: unknown): RequestInit => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

function start() {
  const { execute } = scripted((context) => {
    if (context.item.customId === "hang") return hang(context);
    return context.item.customId === "bad"
      ? { status: 400, body: { error: { message: "no" } } }
      : ok(context);
  });
  const tenant = (request: Request) => /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  const made = setup(execute, { tenant });
  open = made.batches;
  return made;
}

describe("batches.fetch: OpenAI's Files and Batches routes", () => {
  it("uploads a file, creates a batch, reports it done and serves output and error files in OpenAI's line format", async () => {
    const { batches, clock } = start();
    const uploaded = await batches.fetch(uploadRequest(`${line("a")}\n\n${line("b")}\r\n${line("bad")}\n`));
    expect(uploaded.status).toBe(200);
    const file = (await uploaded.json()) as { id: string; purpose: string; bytes: number };
    expect(file).toMatchObject({ object: "file", purpose: "batch", filename: "input.jsonl" });
    expect(file.bytes).toBeGreaterThan(100);
    const created = await batches.fetch(
      call(
        "/batches",
        json({
          input_file_id: file.id,
          endpoint: "/v1/chat/completions",
          completion_window: "24h",
          metadata: { run: "1" },
        }),
      ),
    );
    expect(created.status).toBe(200);
    const batch = (await created.json()) as { id: string; status: string };
    expect(batch).toMatchObject({
      object: "batch",
      status: "in_progress",
      completion_window: "24h",
      metadata: { run: "1" },
    });
    await advance(clock, 100);
    const done = (await (await batches.fetch(call(`/batches/${batch.id}`))).json()) as Record<
      string,
      unknown
    >;
    expect(done).toMatchObject({
      status: "completed",
      request_counts: { total: 3, completed: 2, failed: 1 },
    });
    const output = await (await batches.fetch(call(`/files/${done.output_file_id}/content`))).text();
    const lines = output
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.custom_id)).toEqual(["a", "b"]);
    expect(lines[0]).toMatchObject({ response: { status_code: 200, body: { echo: "a" } }, error: null });
    expect(String(lines[0]!.id)).toMatch(/^batch_req_/);
    const errors = await (await batches.fetch(call(`/files/${done.error_file_id}/content`))).text();
    expect(JSON.parse(errors.trim())).toMatchObject({
      custom_id: "bad",
      response: { status_code: 400 },
      error: null,
    });
    const input = await (await batches.fetch(call(`/files/${file.id}/content`))).text();
    expect(input).toBe(`${line("a")}\n${line("b")}\n${line("bad")}\n`);
    const meta = (await (await batches.fetch(call(`/files/${file.id}`))).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ id: file.id, object: "file", purpose: "batch", status: "processed" });
    const deleted = await batches.fetch(call(`/files/${file.id}`, { method: "DELETE" }));
    expect(await deleted.json()).toEqual({ id: file.id, object: "file", deleted: true });
    expect((await batches.fetch(call(`/files/${file.id}`))).status).toBe(404);
    expect((await batches.fetch(call(`/files/${file.id}`, { method: "DELETE" }))).status).toBe(404);
  });

  it("answers malformed lines with their line numbers and keeps no file", async () => {
    const { batches } = start();
    const text = [
      line("a"),
      "{not json",
      line("a"),
      JSON.stringify({ custom_id: "c", url: "/v1/chat/completions" }),
      line("d", { extra: 1 }),
    ].join("\n");
    const answer = await batches.fetch(uploadRequest(text));
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as {
      error: { message: string; param: string; code: string; type: string };
    };
    expect(error).toMatchObject({ param: "file", code: "invalid_file", type: "invalid_request_error" });
    expect(error.message).toContain("Line 2: not valid JSON");
    expect(error.message).toContain("Line 3: Duplicate customId `a` at line 3; it is already used at line 1");
    expect(error.message).toContain("Line 5: Unknown option `line 5.extra`");
    expect(error.message).not.toContain("Line 4");
  });

  it("refuses a wrong purpose, a missing tenant, other tenants' objects, bad fields and unknown routes", async () => {
    const { batches } = start();
    expect((await batches.fetch(uploadRequest(line("a"), "fine-tune"))).status).toBe(400);
    expect((await batches.fetch(call("/batches", {}, ""))).status).toBe(401);
    const file = (await (await batches.fetch(uploadRequest(line("a")))).json()) as { id: string };
    expect((await batches.fetch(call(`/files/${file.id}`, {}, "key-b"))).status).toBe(404);
    const other = await batches.fetch(
      call(
        "/batches",
        json({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }),
        "key-b",
      ),
    );
    expect(other.status).toBe(404);
    const bad = await batches.fetch(
      call(
        "/batches",
        json({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "soon" }),
      ),
    );
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("completion_window");
    const created = (await (
      await batches.fetch(
        call(
          "/batches",
          json({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "1h" }),
        ),
      )
    ).json()) as { id: string };
    expect((await batches.fetch(call(`/batches/${created.id}`, {}, "key-b"))).status).toBe(404);
    expect(
      (await batches.fetch(call(`/batches/${created.id}/cancel`, { method: "POST" }, "key-b"))).status,
    ).toBe(404);
    expect((await batches.fetch(call("/nothing"))).status).toBe(404);
    expect((await batches.fetch(call(`/batches/${created.id}`, { method: "DELETE" }))).status).toBe(405);
  });

  it("lists a tenant's batches newest first with OpenAI's cursor fields, and cancels", async () => {
    const { batches } = start();
    const file = (await (await batches.fetch(uploadRequest(line("hang")))).json()) as { id: string };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await batches.fetch(
        call(
          "/batches",
          json({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }),
        ),
      );
      ids.push(((await made.json()) as { id: string }).id);
    }
    const page = (await (await batches.fetch(call("/batches?limit=2"))).json()) as Record<string, unknown>;
    expect(page).toMatchObject({ object: "list", first_id: ids[2], last_id: ids[1], has_more: true });
    const next = (await (await batches.fetch(call(`/batches?limit=2&after=${ids[1]}`))).json()) as {
      data: Array<{ id: string }>;
      has_more: boolean;
    };
    expect(next.data.map((b) => b.id)).toEqual([ids[0]]);
    expect(next.has_more).toBe(false);
    expect(
      ((await (await batches.fetch(call("/batches", {}, "key-b"))).json()) as { data: unknown[] }).data,
    ).toEqual([]);
    const cancelled = (await (
      await batches.fetch(call(`/batches/${ids[0]}/cancel`, { method: "POST" }))
    ).json()) as { status: string };
    expect(cancelled.status).toBe("cancelled");
  });
});

describe("batches.fetch: the priority of a batch created over HTTP", () => {
  async function created(priority: unknown): Promise<{ status: number; runs: string[]; errors: unknown[] }> {
    const tenant = (request: Request) =>
      /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const { batches, clock, runs, errors } = setup(scripted(ok).execute, {
      tenant,
      httpPriority: priority as never,
    });
    open = batches;
    const { id } = (await (await batches.fetch(uploadRequest(line("a")))).json()) as { id: string };
    const answer = await batches.fetch(
      call(
        "/batches",
        json({ input_file_id: id, endpoint: "/v1/chat/completions", completion_window: "24h" }),
      ),
    );
    await advance(clock, 100);
    return { status: answer.status, runs: runs.map((r) => String(r.priority)), errors };
  }

  it("comes from a function of the request and its tenant when one is given", async () => {
    const seen: string[] = [];
    const { status, runs } = await created((_request: Request, tenant: string) => {
      seen.push(tenant);
      return tenant === "key-a" ? "interactive" : "batch";
    });
    expect(status).toBe(200);
    expect(seen).toEqual(["key-a"]);
    expect(runs).toEqual(["interactive"]);
  });

  it("is a 500 reported to onError when the function answers an unknown priority or throws", async () => {
    const unknown = await created(() => "nightly");
    expect(unknown.status).toBe(500);
    expect(String(unknown.errors[0])).toContain("httpPriority");
    expect(unknown.runs).toEqual([]);
    await open?.close();
    const throwing = await created(() => {
      throw new Error("hook broke");
    });
    expect(throwing.status).toBe(500);
    expect(String(throwing.errors[0])).toContain("hook broke");
  });

  it("is checked at creation when it is a string", () => {
    expect(() => setup(scripted(ok).execute, { httpPriority: "nightly" })).toThrow(
      "a configured priority (interactive, batch) or a function",
    );
  });
});

describe("batches.fetch: hostile paths", () => {
  it("answers malformed percent-encoding with a 400 instead of throwing", async () => {
    start();
    for (const path of ["/batches/%E0%A4%A", "/files/%E0%A4%A/content", "/batches/%/cancel"]) {
      const answer = await open!.fetch(call(path, path.endsWith("cancel") ? { method: "POST" } : {}));
      expect(answer.status).toBe(400);
      expect((await answer.json()).error).toMatchObject({
        code: "invalid_url",
        type: "invalid_request_error",
      });
    }
    const long = await open!.fetch(call(`/batches/${"b".repeat(5_000)}`));
    expect(long.status).toBe(404);
  });
});
