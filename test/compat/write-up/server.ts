// server.ts: the write-up's section 6 ("接入现有 LLM 服务"), reconstructed from its usage; only the
// import path differs from the article (`./scheduler` -> `@llm-scheduler/core/compat`).
import { LlmScheduler, type TaskPriority } from "@llm-scheduler/core/compat";
import express from "express";

const app = express();
app.use(express.json());

const scheduler = new LlmScheduler({
  maxConcurrency: 8,
  interactiveWeight: 5,
  batchWeight: 1,
  interactiveQueueTimeoutMs: 5000,
  batchQueueTimeoutMs: 300_000,
});

function callLlm(payload: unknown, headers: Record<string, string>) {
  return fetch("http://127.0.0.1:8000/v1/chat/completions", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...headers,
    },
    body: JSON.stringify(payload),
  });
}

app.post("/chat", async (req, res) => {
  const priority: TaskPriority = req.headers["x-priority"] === "batch" ? "batch" : "interactive";
  const taskId = `${Date.now()}-${Math.random().toString(16).slice(2)}`;

  try {
    await scheduler.submit(taskId, priority, async () => {
      const response = await callLlm(req.body, {
        Authorization: req.headers.authorization ?? "",
      });
      if (!response.ok) {
        throw new Error(`LLM service error: ${response.status}`);
      }
      return response.json();
    });
    res.json({ ok: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : "unknown error";
    res.status(429).json({ ok: false, error: message });
  }
});

app.listen(3000, () => {
  console.log("server listen on 3000");
});
