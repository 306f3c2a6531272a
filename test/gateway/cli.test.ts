import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { startUpstream, type Upstream } from "@llm-scheduler/upstream-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChild } from "../demo/spawn.js";
import { configFile, runBin, type ServingBin, serveBin } from "./bin.js";
import { CHAT_KEY, until } from "./harness.js";

/** The bin as operators run it: --check, start-up errors, hot reload, SIGHUP and SIGTERM drain. */
let sim: Upstream;
beforeAll(async () => {
  sim = await startUpstream({ port: 0, ttftMs: 5, tokenMs: 40 });
});
afterAll(() => sim.close());

const config = (models: string, extra = "") => `
listen: { host: 127.0.0.1, port: 0 }
models:
${models}
keys:
  - { key: "\${CHAT_KEY}", tenant: chat-app }
${extra}`;
const model = (name: string, more = "") =>
  `  ${name}: { upstreams: ["${sim.url}/v1"], maxConcurrency: 2${more} }`;
const env = { CHAT_KEY };

const chat = (url: string, name: string, maxTokens = 2, stream = false) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${CHAT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: name,
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: maxTokens,
      stream,
    }),
  });

describe("llm-scheduler-gateway --check", () => {
  it("exits 0 for a file it can serve", async () => {
    const file = configFile(config(model("m")));
    const { code, stdout } = await runBin(["--config", file, "--check"], env);
    expect(code).toBe(0);
    expect(stdout).toBe(`${file}: ok\n`);
  });

  it("exits 1 with one line naming the path and the likely key", async () => {
    const file = configFile(config(model("llama", ", priorites: {}")));
    const { code, stderr } = await runBin(["--config", file, "--check"], env);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain(
      `${file}: Unknown option \`models.llama.priorites\`; did you mean \`priorities\`?`,
    );
  });

  it("exits 1 with one line for a missing file and a missing variable", async () => {
    const missing = await runBin(["--config", "/nonexistent/gateway.yaml", "--check"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "llm-scheduler-gateway: /nonexistent/gateway.yaml: cannot be read (ENOENT)\n",
    );
    const file = configFile(config(model("m")));
    const { CHAT_KEY: _key, ...without } = process.env;
    const unset = await runBin(["--config", file, "--check"], { ...without } as Record<string, string>);
    expect(unset.stderr).toBe(
      `llm-scheduler-gateway: ${file}: keys[0].key: environment variable \`CHAT_KEY\` is not set\n`,
    );
  });
});

describe("llm-scheduler-gateway --config", () => {
  let running: ServingBin | undefined;
  afterAll(async () => {
    if (running !== undefined) await stopChild(running.child);
  });

  it("says in one line that the port is taken, and exits 1", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const file = configFile(config(model("m")).replace("port: 0", `port: ${port}`));
    const { code, stderr } = await runBin(["--config", file], env);
    taken.close();
    expect(code).toBe(1);
    expect(stderr).toBe(`llm-scheduler-gateway: listen: 127.0.0.1:${port} is taken (EADDRINUSE)\n`);
  });

  it("reloads on a change of the file and on SIGHUP, and keeps the old config when the new one is invalid", async () => {
    const file = configFile(config(model("m")));
    running = await serveBin(file, env);
    const { url } = running;
    expect((await chat(url, "m")).status).toBe(200);
    expect((await chat(url, "added")).status).toBe(404);
    // a request in flight while the file changes finishes
    const inFlight = chat(url, "m", 10);
    writeFileSync(file, config(`${model("m")}\n${model("added")}`));
    await until(async () => (await chat(url, "added")).status === 200, 20_000).catch((error) => {
      throw new Error(`${error}\n${running?.output()}`);
    });
    expect((await inFlight).status).toBe(200);
    const reloads = () => running!.output().split("configuration reloaded").length - 1;
    const before = reloads();
    running.child.kill("SIGHUP");
    await until(() => reloads() > before);
    writeFileSync(file, config(`${model("m", ", maxQeue: 3")}`));
    await until(() => running!.output().includes("reload refused"));
    const refusal = running
      .output()
      .split("\n")
      .find((line) => line.includes("reload refused"))!;
    expect(refusal).toContain("did you mean `maxQueue`?");
    expect((await chat(url, "added")).status).toBe(200);
    expect(running.output()).not.toContain(CHAT_KEY);
  });

  it("drains on SIGTERM: the running stream ends whole, new requests are refused, exit 0", async () => {
    const file = configFile(config(model("m")));
    const served = await serveBin(file, env);
    const answer = await chat(served.url, "m", 20, true);
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    served.child.kill("SIGTERM");
    await until(() => served.output().includes("draining"));
    const refused = await chat(served.url, "m").then(
      (r) => r.status,
      () => "connection refused",
    );
    expect([503, "connection refused"]).toContain(refused);
    let text = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain("data: [DONE]");
    expect(await served.exited).toBe(0);
  });
});
