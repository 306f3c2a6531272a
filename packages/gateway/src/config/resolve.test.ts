import { describe, expect, it } from "vitest";
import { sha256Hex } from "./digest.js";
import { ConfigError } from "./errors.js";
import { parseConfig, resolveConfig } from "./resolve.js";

const KEY = "sk-test-0123456789abcdef0123456789";
const UP = "http://127.0.0.1:8000";

/** A valid file's text with `extra` lines added under the first model. */
const yaml = (extra = "") => `
listen: { host: 127.0.0.1, port: 8080 }
models:
  llama:
    upstreams: ["${UP}/v1", "http://127.0.0.1:8001"]
    maxConcurrency: 16
    priorities: { interactive: { weight: 5, reserved: 2 }, batch: { weight: 1, maxWaitMs: 60000 } }
${extra}
keys:
  - { key: "\${CHAT_KEY}", tenant: chat-app, priority: interactive }
  - { sha256: "${"a".repeat(64)}", tenant: etl, priority: batch, tokensPerMinute: 200000, maxConcurrency: 8 }
admin: { key: "\${ADMIN_KEY}" }
`;
const env = { CHAT_KEY: KEY, ADMIN_KEY: `${KEY}-admin` };

/** The one-line message of a refused configuration. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const { message } = error as ConfigError;
  expect(message).not.toContain("\n");
  return message;
}

describe("parseConfig", () => {
  it("resolves the issue's example: per-server limit times servers, keys as digests, bases without /v1", async () => {
    const config = await parseConfig(yaml(), env);
    const llama = config.models.get("llama")!;
    expect(llama.replicas.map((r) => [r.url, r.id, r.maxConcurrency])).toEqual([
      [UP, UP, 16],
      ["http://127.0.0.1:8001", "http://127.0.0.1:8001", 16],
    ]);
    expect(llama.scheduler.maxConcurrency).toBe(32);
    expect(llama.scheduler.tenants?.etl).toEqual({ tokensPerMinute: 200_000, maxConcurrency: 8 });
    expect(config.keys[0]).toEqual({
      sha256: await sha256Hex(KEY),
      tenant: "chat-app",
      priority: "interactive",
    });
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(config.admin).toBe(await sha256Hex(env.ADMIN_KEY));
  });

  it("names an unknown key by its full path with a did-you-mean", async () => {
    const message = await refusal(parseConfig(yaml("    priorites: {}"), env));
    expect(message).toContain("`models.llama.priorites`; did you mean `priorities`?");
  });

  it("checks a model's scheduler options with the library's own rules and paths", async () => {
    const bad = await refusal(parseConfig(yaml("    maxQueue: 0"), env));
    expect(bad).toMatch(/^Expected `models\.llama\.maxQueue` to be an integer from 1/);
    const nested = yaml().replace("reserved: 2", "reserved: 2, maxQeue: 3");
    expect(await refusal(parseConfig(nested, env))).toContain("did you mean `maxQueue`?");
    const reserved = yaml().replace("reserved: 2", "reserved: 40");
    expect(await refusal(parseConfig(reserved, env))).toContain("models.llama.");
  });

  it("names a missing environment variable without any value", async () => {
    const message = await refusal(parseConfig(yaml(), { CHAT_KEY: KEY }));
    expect(message).toBe("admin.key: environment variable `ADMIN_KEY` is not set");
  });

  it("never shows a wrong key's value", async () => {
    const short = "sk-short";
    const message = await refusal(parseConfig(yaml(), { ...env, CHAT_KEY: short }));
    expect(message).toContain("keys[0].key");
    expect(message).not.toContain(short);
  });

  it("reports a YAML syntax error by position only", async () => {
    const message = await refusal(parseConfig(`models:\n  a: { upstreams: [${KEY}\n`, env));
    expect(message).toMatch(/^not valid YAML or JSON at line \d+, column \d+/);
    expect(message).not.toContain(KEY);
  });

  it("reads JSON, with Infinity as a string", async () => {
    const json = JSON.stringify({
      auth: "none",
      models: { m: { upstreams: [UP], maxQueue: "Infinity" } },
    });
    const config = await parseConfig(json);
    expect(config.models.get("m")!.scheduler.maxQueue).toBe(Number.POSITIVE_INFINITY);
  });

  it("is closed unless `auth: none` is written out", async () => {
    const models = { m: { upstreams: [UP] } };
    expect(await refusal(resolveConfig({ models }))).toMatch(/^keys: required.*auth: none/);
    const open = await resolveConfig({ models, auth: "none" });
    expect(open.auth).toBe("none");
    const both = resolveConfig({ models, auth: "none", keys: [{ key: KEY, tenant: "t" }] });
    expect(await refusal(both)).toMatch(/^keys: given with `auth: none`/);
  });

  it("refuses a key given twice, one without a tenant, and a priority the model lacks", async () => {
    const models = { m: { upstreams: [UP] } };
    const twice = resolveConfig({
      models,
      keys: [
        { key: KEY, tenant: "a" },
        { sha256: await sha256Hex(KEY), tenant: "b" },
      ],
    });
    expect(await refusal(twice)).toBe("keys[1]: the same key as keys[0]");
    expect(await refusal(resolveConfig({ models, keys: [{ key: KEY }] }))).toBe("keys[0].tenant: required");
    const unknown = resolveConfig({ models, keys: [{ key: KEY, tenant: "a", priority: "urgent" }] });
    expect(await refusal(unknown)).toContain("keys[0].priority: `urgent` is not a priority of model `m`");
    const both = resolveConfig({ models, keys: [{ key: KEY, sha256: "a".repeat(64), tenant: "a" }] });
    expect(await refusal(both)).toBe("keys[0]: give exactly one of `key` and `sha256`");
  });

  it("gives each replica the adaptive range, the scheduler their floors, and requires upstreams", async () => {
    const config = await resolveConfig({
      auth: "none",
      models: { m: { upstreams: [UP, `${UP}1`], maxConcurrency: { min: 2, max: 8 }, adaptive: {} } },
    });
    const m = config.models.get("m")!;
    expect(m.scheduler.maxConcurrency).toBe(4);
    expect(m.scheduler.adaptive).toBeUndefined();
    expect(m.replicas.map((r) => [r.maxConcurrency, r.adaptive])).toEqual([
      [{ min: 2, max: 8 }, {}],
      [{ min: 2, max: 8 }, {}],
    ]);
    expect(await refusal(resolveConfig({ auth: "none", models: { m: {} } }))).toBe(
      "models.m.upstreams: required (one URL at least)",
    );
    expect(
      await refusal(resolveConfig({ auth: "none", models: { m: { upstreams: ["ftp://x"] } } })),
    ).toContain("models.m.upstreams[0]");
  });

  it("takes replica objects and a pool block, checked by the pool's own schema with their paths", async () => {
    const config = await resolveConfig({
      auth: "none",
      probeIntervalMs: 2_000,
      models: {
        m: {
          upstreams: [
            `${UP}/v1`,
            { url: "http://user:secret@10.0.0.6:8000", id: "gpu-1", maxConcurrency: { min: 2, max: 16 } },
            { url: "http://user:secret@10.0.0.7:8000/v1" },
          ],
          maxConcurrency: 4,
          pool: { routing: "least-loaded", retries: 1, signals: false, maxConcurrency: 6 },
        },
      },
    });
    const m = config.models.get("m")!;
    expect(m.replicas).toEqual([
      { url: UP, id: UP, maxConcurrency: 4 },
      { url: "http://user:secret@10.0.0.6:8000", id: "gpu-1", maxConcurrency: { min: 2, max: 16 } },
      { url: "http://user:secret@10.0.0.7:8000", id: "http://10.0.0.7:8000", maxConcurrency: 4 },
    ]);
    expect(m.pool).toEqual({
      routing: "least-loaded",
      retries: 1,
      signals: false,
      maxConcurrency: 6,
      health: { intervalMs: 2_000 },
    });
    expect(m.scheduler.maxConcurrency).toBe(6); // the cap, below the replicas' floors (4 + 2 + 4)
    const refused = (model: Record<string, unknown>) =>
      refusal(resolveConfig({ auth: "none", models: { m: { upstreams: [UP], ...model } } }));
    expect(await refused({ pool: { helth: {} } })).toContain(
      "Unknown option `models.m.pool.helth`; did you mean `health`?",
    );
    expect(await refused({ pool: { routing: "random" } })).toContain("`models.m.pool.routing`");
    expect(await refused({ pool: { health: { ejectMs: 10, maxEjectMs: 5 } } })).toContain(
      "`models.m.pool.health.maxEjectMs` to be an integer from 10",
    );
    expect(await refused({ upstreams: [{ url: UP, maxConcurrency: { min: 9, max: 3 } }] })).toContain(
      "`models.m.upstreams[0].maxConcurrency",
    );
    expect(await refused({ upstreams: [{ url: UP, limit: 3 }] })).toContain(
      "Unknown option `models.m.upstreams[0].limit`",
    );
    expect(await refused({ upstreams: [UP, `${UP}/v1`] })).toBe(
      `models.m.upstreams[1]: the replica \`${UP}\` is listed twice`,
    );
  });
});
