import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Spawned, startExample } from "../demo/spawn.js";

let sim: Upstream;
beforeAll(async () => {
  sim = await startUpstream({ port: 0, parallel: 4, ttftMs: 5, tokenMs: 1, prefillMsPerToken: 0 });
});
afterAll(async () => {
  await sim?.close();
});

const input = Array.from({ length: 5 }, (_, n) =>
  JSON.stringify({
    custom_id: `ex-${n}`,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "sim-model", messages: [{ role: "user", content: `q ${n}` }], max_tokens: 3 },
  }),
).join("\n");

describe.each([["express-openai-proxy/server.ts"], ["hono-gateway/server.ts"]])(
  "the Batch API mounted in examples/%s",
  (entry) => {
    let example: Spawned | undefined;
    afterAll(async () => {
      await example?.stop();
    });

    it("runs a batch uploaded with the official client, and keeps it from other keys", async () => {
      example = await startExample(entry, {
        UPSTREAM_URL: sim.url,
        API_KEYS: "sk-team-a:team-a:interactive,sk-team-b:team-b:interactive",
        ADMIN_KEY: "sk-admin-0123456789abcdef",
      });
      const client = new OpenAI({ baseURL: `${example.url}/v1`, apiKey: "sk-team-a", maxRetries: 0 });
      const file = await client.files.create({
        file: await toFile(Buffer.from(input), "in.jsonl"),
        purpose: "batch",
      });
      const created = await client.batches.create({
        input_file_id: file.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
      });
      let batch = created;
      for (let i = 0; i < 200 && batch.status !== "completed"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        batch = await client.batches.retrieve(created.id);
      }
      expect(batch.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
      const lines = (await (await client.files.content(batch.output_file_id!)).text()).trim().split("\n");
      expect(lines.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id)).toEqual([
        "ex-0",
        "ex-1",
        "ex-2",
        "ex-3",
        "ex-4",
      ]);
      const other = new OpenAI({ baseURL: `${example.url}/v1`, apiKey: "sk-team-b", maxRetries: 0 });
      await expect(other.batches.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
      const anonymous = await fetch(`${example.url}/v1/batches/${created.id}`);
      expect(anonymous.status).toBe(401);
    });

    it("shows the batch on its dashboard and in its Prometheus metrics", async () => {
      const admin = { authorization: "Bearer sk-admin-0123456789abcdef" };
      const snapshot = (await (
        await fetch(`${example!.url}/dashboard/api/snapshot`, { headers: admin })
      ).json()) as { batches?: { status: string }[] };
      expect(snapshot.batches?.map((batch) => batch.status)).toEqual(["completed"]);
      const metrics = await (await fetch(`${example!.url}/metrics`, { headers: admin })).text();
      expect(metrics).toContain('llm_scheduler_batches{status="completed"} 1');
    });
  },
);
