// A replica killed mid-run, in real time: simulated replicas (upstream-sim) over HTTP on loopback behind
// a real pool; one replica crashes while streams run on every replica. What matters is what the clients
// saw: a request that had not received a byte must not fail (it moves to another replica, keeping its
// slot); one that had received bytes from the killed replica is cut (it can never move).
import { createPool, type Pool } from "@llm-scheduler/pool";
import { startReplicas, type Upstream } from "@llm-scheduler/upstream-sim";

export type Outcome = "complete" | "cut-after-bytes" | "failed-before-bytes";

export interface KilledRun {
  readonly label: string;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  /** Attempts that failed on a replica before their first byte (with retries, each went to another). */
  readonly failedAttempts: number;
}

const REPLICAS = 4;
const SEQUENCES = 4;
/** Between two sends: 25 a second, below what the three replicas left can serve, so none waits out its queue timeout. */
const SPACING_MS = 40;

/** One streamed chat completion through the pool, read to its end. */
async function streamOnce(pool: Pool, i: number): Promise<Outcome> {
  let received = false;
  try {
    const response = await pool.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "sim-model",
        stream: true,
        max_tokens: 20,
        messages: [
          { role: "system", content: `You answer for team ${i % 16}.` },
          { role: "user", content: `Question ${i}` },
        ],
      }),
    });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      return "failed-before-bytes";
    }
    received = true; // its status line is out: it can no longer move to another replica
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength > 0) received = true;
    }
    return "complete";
  } catch {
    return received ? "cut-after-bytes" : "failed-before-bytes";
  }
}

/**
 * `requests` streams sent at a steady pace across `REPLICAS` replicas; the first replica crashes once it
 * holds streams. `retries: 0` is the peer: the same crash without moving requests.
 */
export async function runKilled(label: string, requests: number, retries: number): Promise<KilledRun> {
  const sims: Upstream[] = await startReplicas(REPLICAS, { parallel: SEQUENCES, ttftMs: 20, tokenMs: 10 });
  const pool = createPool({
    replicas: sims.map((sim) => ({ url: sim.url, maxConcurrency: SEQUENCES })),
    scheduler: { maxConcurrency: REPLICAS * SEQUENCES },
    routing: "least-loaded",
    retries,
    // the default health settings: three failures in a row eject a replica, so some requests find it dead
    health: { ejectMs: 60_000 },
    signals: false,
  });
  try {
    const runs: Promise<Outcome>[] = [];
    for (let i = 0; i < requests; i++) {
      runs.push(streamOnce(pool, i));
      if (i === Math.floor(requests / 3)) {
        while (sims[0]!.stats().served < 2) await new Promise((r) => setTimeout(r, 5));
        await sims[0]!.crash(); // streams on it are cut; requests on their way there must move
      }
      await new Promise((r) => setTimeout(r, SPACING_MS));
    }
    const outcomes = { complete: 0, "cut-after-bytes": 0, "failed-before-bytes": 0 };
    for (const outcome of await Promise.all(runs)) outcomes[outcome] += 1;
    const failedAttempts = pool
      .metrics()
      .replicas.reduce((sum, replica) => sum + replica.failedBeforeFirstByte, 0);
    return { label, outcomes, failedAttempts };
  } finally {
    await pool.close();
    await Promise.all(sims.map((sim) => sim.close()));
  }
}
