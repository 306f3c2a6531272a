/** The page's stylesheet, served as `app.css`. */
export const STYLE_CSS = `
:root { color-scheme: light; font: 14px/1.4 system-ui, sans-serif; color: #111827; background: #f3f4f6; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; padding: 12px 20px; background: #111827; color: #f9fafb; }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 15px; margin: 0 0 8px; }
h2 small, h3 { font-weight: normal; color: #6b7280; font-size: 12px; }
.status { padding: 2px 8px; border-radius: 10px; background: #4b5563; font-size: 12px; }
.status.live { background: #15803d; }
.status.closed { background: #b91c1c; }
.totals { display: flex; gap: 18px; margin: 0 0 0 auto; }
.totals div { text-align: center; }
.totals dt { font-size: 11px; color: #9ca3af; }
.totals dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 14px; padding: 14px 20px; }
section { background: #fff; border-radius: 8px; padding: 12px 14px; box-shadow: 0 1px 2px #0001; overflow-x: auto; }
section.wide { grid-column: span 1; }
section.full { grid-column: 1 / -1; }
.chart { width: 100%; height: auto; display: block; }
.chart .grid { stroke: #e5e7eb; }
.chart .axis { stroke: #6b7280; }
.chart .tick, .chart .legend { font-size: 11px; fill: #374151; }
.chart .unit { font-size: 11px; fill: #6b7280; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #e5e7eb; white-space: nowrap; }
td { max-width: 260px; overflow: hidden; text-overflow: ellipsis; }
progress { width: 120px; vertical-align: middle; }
button { margin-right: 4px; font: inherit; font-size: 12px; }
form label { margin-right: 12px; }
input[type=number] { width: 80px; }
.ok { color: #15803d; }
.error { color: #b91c1c; }
.note { color: #6b7280; grid-column: 1 / -1; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 14px; margin-top: 10px; }
.health { padding: 1px 8px; border-radius: 10px; font-size: 12px; color: #fff; }
.health.healthy { background: #15803d; }
.health.ejected { background: #b91c1c; }
.health.half-open { background: #b45309; }
#replicas th { white-space: normal; vertical-align: bottom; }
tr.ejected td, tr.half-open td { color: #6b7280; }
`;

/** The page's icon: three bars, served as `favicon.svg`. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#111827"/><rect x="3" y="8" width="2" height="5" fill="#60a5fa"/><rect x="7" y="5" width="2" height="8" fill="#34d399"/><rect x="11" y="3" width="2" height="10" fill="#f87171"/></svg>`;
