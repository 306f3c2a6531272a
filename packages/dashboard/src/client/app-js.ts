/**
 * The page's application code, served after the charts and the live feed as `app.js`: keeps two minutes
 * of snapshots (the server's history first, then the Server-Sent Events) and redraws; offers the
 * controls when the feed says they are allowed, hides tenants and batches in the aggregate view, and
 * draws the replicas of a pool (`renderPool`, from `pool-js.ts`) when the feed has one.
 * Every name that comes from traffic (tenants, batch ids, errors) is set with `textContent`.
 */
export const APP_JS = `
const HISTORY_SEC = 120;
const TENANT_LINES = 6;
const base = document.body.dataset.base || "";
const history = [];
let latest = null;
let shownFailures = null;

function $(id) { return document.getElementById(id); }

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = String(text);
  row.appendChild(td);
  return td;
}

function fillRows(tbody, rows) {
  while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
  for (const values of rows) {
    const tr = document.createElement("tr");
    for (const value of values) {
      if (value instanceof Node) { const td = document.createElement("td"); td.appendChild(value); tr.appendChild(td); }
      else cell(tr, value);
    }
    tbody.appendChild(tr);
  }
}

function sum(record) { return Object.values(record).reduce((a, b) => a + b, 0); }

function renderTotals(s) {
  $("total-running").textContent = String(s.running);
  $("total-queued").textContent = String(s.queued);
  $("total-limit").textContent = String(s.maxConcurrency);
  $("total-started").textContent = String(s.priorities.reduce((a, p) => a + p.started, 0));
  $("total-rejected").textContent = String(sum(s.rejected));
  $("total-preempted").textContent = String(s.priorities.reduce((a, p) => a + p.preempted, 0));
  $("status").textContent = s.closed ? "scheduler closed" : "live";
  $("status").className = "status " + (s.closed ? "closed" : "live");
}

function seriesOf(pick) {
  const names = latest.priorities.map((p) => p.name);
  const now = latest.at;
  const out = [];
  names.forEach((name, i) => {
    for (const spec of pick) {
      out.push({
        label: name + " " + spec.label,
        color: PALETTE[i % PALETTE.length],
        dash: spec.dash,
        points: history.flatMap((h) => {
          const p = h.priorities.find((q) => q.name === name);
          const ago = (now - h.at) / 1000;
          const value = p === undefined || ago > HISTORY_SEC ? undefined : spec.value(p, h);
          return value === undefined ? [] : [[ago, value]];
        }),
      });
    }
  });
  return out;
}

/** Waits of snapshots taken while nobody watched were not recorded: those points are left out. */
function waitOf(pick) {
  return (p, h) => (h.waitsRecorded === false ? undefined : pick(p.waitMs));
}

function renderCharts() {
  // Running against the limit on their own scale: a queue of hundreds would flatten them to a line.
  lineChart($("chart-slots"), seriesOf([
    { label: "running", dash: "", value: (p) => p.running },
    { label: "limit", dash: "2 3", value: (p) => p.limit },
  ]), { windowSec: HISTORY_SEC, yUnit: "slots" });
  lineChart($("chart-queued"), seriesOf([
    { label: "queued", dash: "", value: (p) => p.queued },
  ]), { windowSec: HISTORY_SEC, yUnit: "tasks" });
  lineChart($("chart-wait"), seriesOf([
    { label: "p50", dash: "", value: waitOf((w) => w.p50) },
    { label: "p95", dash: "6 3", value: waitOf((w) => w.p95) },
    { label: "p99", dash: "2 3", value: waitOf((w) => w.p99) },
  ]), { windowSec: HISTORY_SEC, yUnit: "wait (ms)" });
  lineChart($("chart-rejections"), rejectionSeries(), { windowSec: HISTORY_SEC, yUnit: "rejected / s", empty: "no rejections yet" });
  if (latest.view === "full") {
    lineChart($("chart-tenants"), tenantSeries(), { windowSec: HISTORY_SEC, yUnit: "tasks", empty: "no tenants yet" });
  }
}

/** One line per rejection code: how many per second between snapshots; the legend has the totals. */
function rejectionSeries() {
  const now = latest.at;
  return Object.keys(latest.rejected).map((code, i) => ({
    label: code + " (" + latest.rejected[code] + " since start)",
    color: PALETTE[(i + 1) % PALETTE.length],
    dash: "",
    points: history.flatMap((h, k) => {
      const before = history[k - 1];
      const ago = (now - h.at) / 1000;
      const seconds = before === undefined ? 0 : (h.at - before.at) / 1000;
      if (!(seconds > 0) || ago > HISTORY_SEC) return [];
      const added = (h.rejected[code] || 0) - (before.rejected[code] || 0);
      return [[ago, Math.max(0, added) / seconds]];
    }),
  }));
}

function loadOf(s, tenant) {
  return s.tenants.reduce((total, t) => (t.tenant === tenant ? total + t.running + t.queued : total), 0);
}

function shortLabel(text) {
  return text.length > 24 ? text.slice(0, 23) + "…" : text;
}

/** The busiest tenants now (running + queued, over all priorities), each as a line over time. */
function tenantSeries() {
  const totals = new Map();
  for (const t of latest.tenants) totals.set(t.tenant, (totals.get(t.tenant) || 0) + t.running + t.queued);
  const top = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, TENANT_LINES).map((entry) => entry[0]);
  const now = latest.at;
  return top.map((tenant, i) => ({
    label: shortLabel(tenant) + " running + queued",
    color: PALETTE[i % PALETTE.length],
    dash: "",
    points: history.flatMap((h) => {
      const ago = (now - h.at) / 1000;
      return ago > HISTORY_SEC ? [] : [[ago, loadOf(h, tenant)]];
    }),
  }));
}

/** A share in force, with the configured value in brackets when a wait target moved it. */
function inForce(effective, configured) {
  const shown = String(Number(effective.toPrecision(3)));
  return effective === configured ? shown : shown + " (" + configured + ")";
}

function renderTables(s) {
  $("wait-window").textContent = "ms, p50 / p95 / p99 of the starts in the last " + s.waitWindowMs / 1000 + " s";
  fillRows($("priorities").tBodies[0], s.priorities.map((p) => [
    p.name, p.running, p.queued, p.limit,
    inForce(p.effectiveWeight, p.weight), inForce(p.effectiveReserved, p.reserved),
    p.targetWaitMs === null ? "–" : p.targetWaitMs + " ms",
    p.preempted === 0 ? "0" : p.preempted + " (" + (p.preemptedRunMs / 1000).toFixed(1) + " s lost)",
    Math.round(p.waitMs.p50) + " / " + Math.round(p.waitMs.p95) + " / " + Math.round(p.waitMs.p99),
  ]));
  $("tenants-section").hidden = s.view !== "full";
  $("aggregate-note").hidden = s.view === "full";
  fillRows($("tenants").tBodies[0], s.tenants.map((t) => [t.tenant, t.priority, t.running, t.queued]));
}

function batchButtons(batch) {
  const span = document.createElement("span");
  const failedButton = document.createElement("button");
  failedButton.textContent = "failed items";
  failedButton.disabled = batch.failed === 0;
  failedButton.addEventListener("click", () => showFailures(batch.id));
  span.appendChild(failedButton);
  if (latest.controls) {
    for (const [action, label] of [["cancel", "cancel"], ["retry", "retry failed"]]) {
      const button = document.createElement("button");
      button.textContent = label;
      button.dataset.action = action;
      button.addEventListener("click", () => control("api/batches/" + encodeURIComponent(batch.id) + "/" + action, {}));
      span.appendChild(button);
    }
  }
  return span;
}

function progressOf(batch) {
  const bar = document.createElement("progress");
  bar.max = Math.max(batch.total, 1);
  bar.value = batch.completed + batch.failed;
  const wrap = document.createElement("span");
  wrap.appendChild(bar);
  wrap.appendChild(document.createTextNode(" " + (batch.completed + batch.failed) + " / " + batch.total));
  return wrap;
}

function renderBatches(s) {
  $("batches-section").hidden = s.batches === null;
  if (s.batches === null) return;
  fillRows($("batches").tBodies[0], s.batches.map((b) => [
    b.id, b.tenant === null ? "" : b.tenant, b.status, progressOf(b), b.failed, batchButtons(b),
  ]));
}

async function showFailures(id) {
  shownFailures = id;
  const response = await fetch(base + "/api/batches/" + encodeURIComponent(id) + "/failed");
  const body = await response.json();
  if (shownFailures !== id) return;
  $("failed-items").hidden = false;
  $("failed-batch").textContent = id;
  fillRows($("failed-items").querySelector("tbody"), (body.data || []).map((f) => [f.customId, f.error, f.attempts]));
}

function renderControls(s) {
  $("controls").hidden = !s.controls;
  $("read-only").hidden = s.controls;
  if (!s.controls) return;
  const inputs = $("weight-inputs");
  if (inputs.childElementCount !== s.priorities.length) {
    while (inputs.firstChild) inputs.removeChild(inputs.firstChild);
    for (const p of s.priorities) {
      const label = document.createElement("label");
      label.textContent = p.name + " weight ";
      const input = document.createElement("input");
      input.type = "number"; input.min = "0.001"; input.step = "any"; input.dataset.priority = p.name;
      input.value = String(p.weight);
      label.appendChild(input);
      inputs.appendChild(label);
    }
  }
  const limit = $("limit-input");
  if (document.activeElement !== limit && limit.dataset.touched !== "1") limit.value = String(s.maxConcurrency);
}

async function control(path, body) {
  const result = $("control-result");
  try {
    const response = await fetch(base + "/" + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    result.textContent = response.ok ? "applied" : "refused: " + answer.error.message;
    result.className = response.ok ? "ok" : "error";
  } catch (error) {
    result.textContent = "failed: " + error.message;
    result.className = "error";
  }
}

$("limits-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const weights = {};
  for (const input of $("weight-inputs").querySelectorAll("input")) weights[input.dataset.priority] = Number(input.value);
  $("limit-input").dataset.touched = "";
  control("api/limits", { maxConcurrency: Number($("limit-input").value), weights: weights });
});
$("limit-input").addEventListener("input", () => { $("limit-input").dataset.touched = "1"; });

function onSnapshot(s) {
  latest = s;
  history.push(s);
  while (history.length > 0 && s.at - history[0].at > HISTORY_SEC * 1000) history.shift();
  renderTotals(s);
  renderCharts();
  renderTables(s);
  renderPool(s);
  renderBatches(s);
  renderControls(s);
}

function setStatus(state, text) {
  $("status").textContent = text;
  $("status").className = "status " + (state === "live" ? "live" : "closed");
}

liveFeed({
  url: base + "/api/events",
  fetch: (url, init) => fetch(url, init),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle),
  random: Math.random,
  onStatus: setStatus,
  onEvent: (name, data) => {
    if (name === "history") history.splice(0, history.length, ...data.data);
    else if (name === "snapshot") onSnapshot(data);
  },
});
`;
