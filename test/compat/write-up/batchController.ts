// batchController.ts: the write-up's section 8 ("批量任务与接口设计"), reconstructed from its usage. The
// article uses the `LlmScheduler` type without showing its import; this is that import.
import type { LlmScheduler } from "@llm-scheduler/core/compat";

interface BatchTask {
  batchId: string;
  items: unknown[];
}

const batchProgress = new Map<string, { done: number; total: number; failed: number }>();

async function submitBatch(batch: BatchTask, scheduler: LlmScheduler) {
  const total = batch.items.length;
  batchProgress.set(batch.batchId, { done: 0, total, failed: 0 });

  // biome-ignore lint/correctness/noUnusedFunctionParameters: the write-up's code, as written
  const promises = batch.items.map((item, index) => {
    return scheduler
      .submit(`${batch.batchId}-${index}`, "batch", async () => {
        // 这里调用你的 LLM 服务
        return { ok: true };
      })
      .then(() => {
        const progress = batchProgress.get(batch.batchId);
        if (progress) progress.done += 1;
      })
      .catch(() => {
        const progress = batchProgress.get(batch.batchId);
        if (progress) progress.failed += 1;
      });
  });

  await Promise.allSettled(promises);
}

function getBatchProgress(batchId: string) {
  return batchProgress.get(batchId) ?? { done: 0, total: 0, failed: 0 };
}

export { getBatchProgress, submitBatch };
