/**
 * Escapes text for HTML content and attribute values.
 *
 * @example
 * escapeHtml('<a href="x">'); // "&#60;a href=&#34;x&#34;&#62;"
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The dashboard's one page: static markup, filled in by `app.js` from the live feed. It holds no data of
 * its own, so nothing a client sends (tenant names, batch ids) ever passes through HTML markup.
 *
 * @example
 * new Response(pageHtml("/dashboard"), { headers: { "content-type": "text/html" } });
 */
export function pageHtml(path: string): string {
  const base = escapeHtml(path);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>llm-scheduler dashboard</title>
<link rel="icon" href="${base}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${base}/app.css">
<script src="${base}/app.js" defer></script>
</head>
<body data-base="${base}">
<header>
  <h1>llm-scheduler</h1>
  <span id="status" class="status">connecting…</span>
  <dl class="totals">
    <div><dt>running</dt><dd id="total-running">–</dd></div>
    <div><dt>queued</dt><dd id="total-queued">–</dd></div>
    <div><dt>limit</dt><dd id="total-limit">–</dd></div>
    <div><dt>preempted</dt><dd id="total-preempted">–</dd></div>
    <div><dt>started</dt><dd id="total-started">–</dd></div>
    <div><dt>rejected</dt><dd id="total-rejected">–</dd></div>
  </dl>
</header>
<main>
  <section class="wide">
    <h2>Slots per priority <small>running against the limit in force, last 2 minutes</small></h2>
    <svg id="chart-slots" class="chart" role="img" aria-label="Running and limit per priority over time"></svg>
  </section>
  <section class="wide">
    <h2>Queued per priority <small>tasks waiting for a slot, last 2 minutes</small></h2>
    <svg id="chart-queued" class="chart" role="img" aria-label="Queued tasks per priority over time"></svg>
  </section>
  <section class="wide">
    <h2>Queue wait <small id="wait-window">ms, p50 / p95 / p99 of starts in a sliding window</small></h2>
    <svg id="chart-wait" class="chart" role="img" aria-label="Queue wait quantiles per priority over time"></svg>
  </section>
  <section class="full">
    <h2>Priorities <small>weight and reserved in force (configured in brackets while a wait target moves them); wait in ms, starts in the window</small></h2>
    <table id="priorities"><thead><tr><th>priority</th><th>running</th><th>queued</th><th>limit</th><th>weight</th><th>reserved</th><th>wait target</th><th>preempted</th><th>wait p50 / p95 / p99</th></tr></thead><tbody></tbody></table>
  </section>
  <section id="replicas-section" class="full" hidden>
    <h2>Replicas <small id="pool-capacity"></small></h2>
    <table id="replicas"><thead><tr><th>replica</th><th>url</th><th>health</th><th>in flight / limit</th><th>engine waiting</th><th>engine running</th><th>KV cache</th><th>sent</th><th title="attempts that failed before their first byte and went to another replica">failed before 1st byte</th><th title="consecutive failures (connection errors, 5xx, failed checks)">failing in a row</th><th>ejections</th></tr></thead><tbody></tbody></table>
    <div class="pair">
      <div><h3>In flight per replica, last 2 minutes</h3>
      <svg id="chart-replicas" class="chart" role="img" aria-label="Requests in flight per replica over time"></svg></div>
      <div><h3>Pool capacity, last 2 minutes: every replica's limit, the healthy ones', and running</h3>
      <svg id="chart-capacity" class="chart" role="img" aria-label="Pool capacity, healthy capacity and running over time"></svg></div>
    </div>
  </section>
  <section class="wide">
    <h2>Rejections by reason <small>tasks refused per second, last 2 minutes; totals in the legend</small></h2>
    <svg id="chart-rejections" class="chart" role="img" aria-label="Rejections per second by reason over time"></svg>
  </section>
  <p id="aggregate-note" class="note" hidden>Totals only: tenants, batches and replica URLs are shown to authorized viewers.</p>
  <section id="tenants-section" class="wide">
    <h2>Busiest tenants <small>running + queued tasks, last 2 minutes; the table is now</small></h2>
    <svg id="chart-tenants" class="chart" role="img" aria-label="Running plus queued tasks of the busiest tenants over time"></svg>
    <table id="tenants"><thead><tr><th>tenant</th><th>priority</th><th>running</th><th>queued</th></tr></thead><tbody></tbody></table>
  </section>
  <section id="batches-section" class="full" hidden>
    <h2>Batches <small>newest first</small></h2>
    <table id="batches"><thead><tr><th>batch</th><th>tenant</th><th>status</th><th>progress</th><th>failed</th><th></th></tr></thead><tbody></tbody></table>
    <div id="failed-items" hidden><h3>Failed items of <span id="failed-batch"></span></h3>
    <table><thead><tr><th>custom id</th><th>latest error</th><th>attempts</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section id="controls" hidden>
    <h2>Controls</h2>
    <form id="limits-form" novalidate>
      <label>limit <input id="limit-input" name="maxConcurrency" type="number" min="1" max="100000" step="1"></label>
      <span id="weight-inputs"></span>
      <button type="submit" id="apply-limits">Apply</button>
    </form>
    <p id="control-result" role="status"></p>
  </section>
  <p id="read-only" class="note" hidden>Read-only: controls need an authorized request.</p>
</main>
</body>
</html>
`;
}
