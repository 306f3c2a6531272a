/**
 * The page's replicas section, served inside `app.js` (after the charts, before the application code,
 * whose helpers and history it uses when called): one row per replica with its health marked, the
 * pool's capacity against its healthy capacity, and two charts over the history. Replica ids and URLs
 * come from configuration and are set with `textContent` only; the health class is picked from a
 * fixed list, never taken from the feed.
 */
export const POOL_JS = `
const REPLICA_LINES = 8;
const HEALTH_CLASSES = { healthy: "healthy", ejected: "ejected", "half-open": "half-open" };

function healthBadge(health) {
  const span = document.createElement("span");
  span.className = "health " + (HEALTH_CLASSES[health] || "ejected");
  span.textContent = String(health);
  return span;
}

function engineCells(engine) {
  if (engine === null) return ["–", "–", "–"];
  const kv = engine.kvCacheUsage === null ? "–" : Math.round(engine.kvCacheUsage * 100) + "%";
  return [engine.waiting, engine.running, kv];
}

function capacityText(pool) {
  const down = pool.total - pool.healthyReplicas;
  const parts = [
    "healthy capacity " + pool.healthyCapacity + " of " + pool.capacity + " slots",
    pool.healthyReplicas + " of " + pool.total + " replicas healthy" + (down > 0 ? " (" + down + " out)" : ""),
    pool.waitingForReplica + " waiting for a replica",
  ];
  if (pool.total > pool.replicas.length) parts.push("the first " + pool.replicas.length + " shown");
  return parts.join("; ");
}

function inFlightOf(h, id) {
  if (h.pool === null || h.pool === undefined) return undefined;
  const replica = h.pool.replicas.find((r) => r.id === id);
  return replica === undefined ? undefined : replica.inFlight;
}

/** The first replicas in the pool's order (so each keeps its colour), in flight over time. */
function replicaSeries(pool) {
  const now = latest.at;
  return pool.replicas.slice(0, REPLICA_LINES).map((replica, i) => ({
    label: shortLabel(replica.id) + " in flight" + (replica.health === "healthy" ? "" : " (" + replica.health + ")"),
    color: PALETTE[i % PALETTE.length],
    dash: replica.health === "healthy" ? "" : "2 3",
    points: history.flatMap((h) => {
      const ago = (now - h.at) / 1000;
      const value = ago > HISTORY_SEC ? undefined : inFlightOf(h, replica.id);
      return value === undefined ? [] : [[ago, value]];
    }),
  }));
}

function capacitySeries() {
  const now = latest.at;
  const line = (label, color, dash, value) => ({
    label: label, color: color, dash: dash,
    points: history.flatMap((h) => {
      const ago = (now - h.at) / 1000;
      return ago > HISTORY_SEC || h.pool === null || h.pool === undefined ? [] : [[ago, value(h)]];
    }),
  });
  return [
    line("capacity (every replica)", "#6b7280", "6 3", (h) => h.pool.capacity),
    line("healthy capacity", PALETTE[2], "", (h) => h.pool.healthyCapacity),
    line("running", PALETTE[0], "", (h) => h.running),
  ];
}

function renderPool(s) {
  const section = $("replicas-section");
  section.hidden = s.pool === null;
  if (s.pool === null) return;
  const pool = s.pool;
  $("pool-capacity").textContent = capacityText(pool);
  const tbody = $("replicas").tBodies[0];
  fillRows(tbody, pool.replicas.map((r) => [
    r.id, r.url === null ? "–" : r.url, healthBadge(r.health), r.inFlight + " / " + r.limit,
    ...engineCells(r.engine), r.sent, r.failedBeforeFirstByte, r.consecutiveFailures, r.ejections,
  ]));
  pool.replicas.forEach((r, i) => {
    const row = tbody.rows[i];
    row.className = HEALTH_CLASSES[r.health] || "ejected";
    row.dataset.health = row.className;
  });
  lineChart($("chart-replicas"), replicaSeries(pool), { windowSec: HISTORY_SEC, yUnit: "requests", empty: "no replicas" });
  lineChart($("chart-capacity"), capacitySeries(), { windowSec: HISTORY_SEC, yUnit: "slots" });
}
`;
