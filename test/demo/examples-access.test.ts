import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Spawned, type StartedExamples, startExamples } from "./spawn.js";

// The examples as an attacker meets them: keys they were not given, rotated keys, the admin paths, and
// a flood of requests against a token bucket.

let sim: Upstream;
/** A prompt the simulator holds until its caller goes away. */
const HANG = "hang until cancelled";

const entries = [["express-openai-proxy/server.ts"], ["koa-gateway/server.ts"], ["hono-gateway/server.ts"]];
const ADMIN_KEY = "sk-admin-access-test";

/** The environment of each way the examples are started here, by the name of its describe block. */
const setups: Record<string, () => Record<string, string>> = {
  "no keys": () => ({ UPSTREAM_URL: sim.url, API_KEYS: "", ADMIN_KEY: "" }),
  "key table": () => ({
    UPSTREAM_URL: sim.url,
    API_KEYS: "sk-team-a:team-a:interactive,sk-team-b:team-b:interactive",
    ADMIN_KEY,
    TENANT_MAX_CONCURRENCY: "2",
    TENANT_TOKENS_PER_MINUTE: "60",
    TENANT_BURST_TOKENS: "300",
    DEFAULT_MAX_TOKENS: "50",
  }),
  anonymous: () => ({
    UPSTREAM_URL: sim.url,
    API_KEYS: "sk-team-a:team-a:interactive",
    ADMIN_KEY,
    UNKNOWN_KEYS: "anonymous", // the pool's default caps: one request at a time, 20,000 tokens a minute
    DEFAULT_MAX_TOKENS: "10", // small charges: the bucket covers all six, the concurrency cap holds them
  }),
};

/** Every example process of the file, started at once in the first hook; each block takes its own. */
let examples: StartedExamples;

beforeAll(async () => {
  sim = await startUpstream({
    port: 0,
    parallel: 16,
    ttftMs: 5,
    tokenMs: 1,
    prefillMsPerToken: 0,
    faultRules: [{ fault: "hang", times: Number.POSITIVE_INFINITY, promptIncludes: HANG }],
  });
  const starts = Object.entries(setups).flatMap(([setup, env]) =>
    entries.map(([entry]) => [`${entry} ${setup}`, [entry!, env()] as const] as const),
  );
  examples = startExamples(Object.fromEntries(starts));
});

afterAll(async () => {
  await examples?.stopAll();
  await sim?.close();
});
const ADMIN_PATHS = ["/metrics", "/metrics.json", "/dashboard", "/dashboard/api/snapshot", "/METRICS.json"];

function chat(url: string, key: string | undefined, content = "Hi", maxTokens = 4): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      model: "sim-model",
      messages: [{ role: "user", content }],
      max_tokens: maxTokens,
    }),
  });
}

interface Metrics {
  readonly tenants: ReadonlyArray<{ readonly tenant: string; readonly running: number }>;
  readonly running: number;
  readonly queued: number;
}

async function metricsOf(url: string, adminKey = ADMIN_KEY): Promise<Metrics> {
  const response = await fetch(`${url}/metrics.json`, { headers: { authorization: `Bearer ${adminKey}` } });
  return (await response.json()) as Metrics;
}

describe.each(entries)("examples/%s started with no keys configured", (entry) => {
  let example: Spawned;
  beforeAll(async () => {
    example = await examples.get(`${entry} no keys`);
  }, 100_000);

  it("makes a demo key and an admin key, prints them, and refuses every other key with 401", async () => {
    await eventually(() => /admin key .*: sk-admin-[0-9a-f]{32}/.test(example.output()));
    const demoKey = /demo key .*: (sk-demo-[0-9a-f]{32})/.exec(example.output())?.[1];
    const adminKey = /admin key .*: (sk-admin-[0-9a-f]{32})/.exec(example.output())?.[1];
    expect(demoKey).toBeDefined();
    const answer = await chat(example.url, demoKey);
    expect(answer.status).toBe(200);
    await answer.text();
    for (const key of ["sk-anything", undefined]) {
      const refused = await chat(example.url, key);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({
        error: { type: "invalid_request_error", code: "invalid_api_key", param: null },
      });
    }
    const metrics = await metricsOf(example.url, adminKey);
    expect(metrics.tenants.map((row) => row.tenant)).not.toContainEqual(expect.stringMatching(/^key-/));
  });
});

describe.each(entries)("examples/%s with a key table", (entry) => {
  let example: Spawned;
  beforeAll(async () => {
    example = await examples.get(`${entry} key table`);
  }, 100_000);

  it("serves /metrics, /metrics.json and the dashboard to the admin key only", async () => {
    for (const path of ADMIN_PATHS) {
      for (const authorization of [undefined, "Bearer sk-team-a", "Bearer sk-admin-access-tesT"]) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const refused = await fetch(`${example.url}${path}`, { headers });
        expect(refused.status, `${path} with ${authorization}`).toBe(401);
        expect(refused.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
        expect(await refused.json()).toMatchObject({ error: { code: "invalid_api_key" } });
      }
    }
    const bearer = await fetch(`${example.url}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(bearer.status).toBe(200);
    await bearer.text();
    // A browser answers the Basic challenge: any user name, the admin key as the password.
    const basic = `Basic ${Buffer.from(`ops:${ADMIN_KEY}`).toString("base64")}`;
    const page = await fetch(`${example.url}/dashboard`, { headers: { authorization: basic } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>llm-scheduler dashboard</title>");
  });

  it("refuses a new key per request: rotating keys gets nothing upstream", async () => {
    const served = sim.stats().served + sim.stats().inFlight;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) => chat(example.url, `sk-rotated-${n}`, HANG)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(401));
    expect(sim.stats().served + sim.stats().inFlight).toBe(served);
  });

  it("refuses a body without a declared length or over MAX_BODY_BYTES before reading it", async () => {
    const large = await fetch(`${example.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-team-a", "content-type": "application/json" },
      body: "x".repeat(8_388_609),
    });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: { code: "request_too_large" } });
    const chunked = await fetch(`${example.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-team-a", "content-type": "application/json" },
      body: new Blob(["{}"]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(411);
  });

  it("charges tokens up front: a flood takes at most the bucket plus one request's worth", async () => {
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => chat(example.url, "sk-team-b", "Hi", 40)),
    );
    const elapsedS = (performance.now() - started) / 1_000;
    let used = 0;
    let largest = 0;
    for (const answer of answers) {
      if (answer.status === 200) {
        const { usage } = (await answer.json()) as { usage: { total_tokens: number } };
        used += usage.total_tokens;
        largest = Math.max(largest, usage.total_tokens);
      } else {
        expect(answer.status).toBe(429);
        expect(await answer.json()).toMatchObject({ error: { code: "RATE_LIMITED" } });
      }
    }
    // 300 in the bucket, refilled at 1 token a second while the flood lasted, and one request beyond.
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(300 + Math.ceil(elapsedS) + largest);
    expect(answers.filter((answer) => answer.status === 429).length).toBeGreaterThan(0);
  });
});

describe.each(entries)("examples/%s with UNKNOWN_KEYS=anonymous", (entry) => {
  let example: Spawned;
  beforeAll(async () => {
    example = await examples.get(`${entry} anonymous`);
  }, 100_000);

  it("pools every unknown key into one `anonymous` tenant whose cap holds", async () => {
    const { inFlight } = sim.stats();
    const controller = new AbortController();
    const refused: number[] = [];
    const pending = Array.from({ length: 6 }, (_, n) =>
      fetch(`${example.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer sk-rotated-${n}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "sim-model", messages: [{ role: "user", content: HANG }] }),
        signal: controller.signal,
      })
        .then((answer) => {
          if (answer.status === 429) refused.push(answer.status);
          return answer.text();
        })
        .catch(() => undefined),
    );
    // All six arrived as one tenant: one runs (the pool's default cap, though seven slots are free),
    // the other five wait behind it.
    await eventually(async () => {
      const metrics = await metricsOf(example.url);
      return metrics.running === 1 && metrics.queued === 5;
    });
    await eventually(() => sim.stats().inFlight - inFlight === 1); // the one running reached upstream
    expect((await metricsOf(example.url)).running).toBe(1);
    expect(refused).toEqual([]);
    const tenants = (await metricsOf(example.url)).tenants.map((row) => row.tenant);
    expect(new Set(tenants)).toEqual(new Set(["anonymous"]));
    expect(example.output()).toContain("UNKNOWN_KEYS=anonymous");
    controller.abort();
    await Promise.all(pending);
    await eventually(async () => (await metricsOf(example.url)).running === 0);
  });

  it("gives the pool no batches or files: those need a configured key", async () => {
    const list = await fetch(`${example.url}/v1/files`, { headers: { authorization: "Bearer sk-someone" } });
    expect(list.status).toBe(entry.startsWith("koa") ? 404 : 401); // the Koa example has no Batch API
    const own = await fetch(`${example.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-team-a", "content-type": "application/json" },
      body: JSON.stringify({
        model: "sim-model",
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 2,
      }),
    });
    expect(own.status).toBe(200);
    await own.text();
  });
});
