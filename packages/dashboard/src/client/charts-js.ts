/**
 * The page's chart code, served as part of `app.js`: line charts drawn as inline SVG with axes,
 * units and a legend. Every label is set with `textContent`, never parsed as markup.
 */
export const CHARTS_JS = `"use strict";
const SVG_NS = "http://www.w3.org/2000/svg";
const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

function svgEl(name, attributes, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(value)));
  for (const step of [1, 2, 4, 6, 8, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

function formatNumber(value) {
  if (value >= 10000) return (value / 1000).toFixed(0) + "k";
  if (value >= 1000) return (value / 1000).toFixed(1) + "k";
  return String(Number(value.toFixed(2)));
}

function clear(svg) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
}

function drawLegend(svg, items, x, y, width) {
  let cx = x;
  let cy = y;
  for (const item of items) {
    const labelWidth = 28 + item.label.length * 7;
    if (cx + labelWidth > x + width) { cx = x; cy += 16; }
    svg.appendChild(svgEl("line", { x1: cx, y1: cy - 4, x2: cx + 18, y2: cy - 4, stroke: item.color, "stroke-width": 2, "stroke-dasharray": item.dash || "" }));
    svg.appendChild(svgEl("text", { x: cx + 22, y: cy, class: "legend" }, item.label));
    cx += labelWidth;
  }
  return cy;
}

/** series: [{ label, color, dash, points: [[secondsAgo, value]] }] */
function lineChart(svg, series, options) {
  clear(svg);
  const width = 640, height = 240, left = 48, right = 12, top = 10, bottom = 70;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  const plotW = width - left - right, plotH = height - top - bottom;
  let max = 0;
  for (const s of series) for (const p of s.points) max = Math.max(max, p[1]);
  max = niceMax(max);
  const x = (ago) => left + plotW * (1 - ago / options.windowSec);
  const y = (v) => top + plotH * (1 - v / max);
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    svg.appendChild(svgEl("line", { x1: left, x2: left + plotW, y1: y(v), y2: y(v), class: "grid" }));
    svg.appendChild(svgEl("text", { x: left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, formatNumber(v)));
  }
  for (let ago = 0; ago <= options.windowSec; ago += options.windowSec / 4) {
    svg.appendChild(svgEl("text", { x: x(ago), y: top + plotH + 16, class: "tick", "text-anchor": "middle" }, ago === 0 ? "now" : "-" + ago + " s"));
  }
  svg.appendChild(svgEl("line", { x1: left, x2: left, y1: top, y2: top + plotH, class: "axis" }));
  svg.appendChild(svgEl("line", { x1: left, x2: left + plotW, y1: top + plotH, y2: top + plotH, class: "axis" }));
  svg.appendChild(svgEl("text", { x: 12, y: top + plotH / 2, class: "unit", transform: "rotate(-90 12 " + (top + plotH / 2) + ")", "text-anchor": "middle" }, options.yUnit));
  svg.appendChild(svgEl("text", { x: left + plotW, y: top + plotH + 30, class: "unit", "text-anchor": "end" }, "time (s)"));
  if (series.length === 0 && options.empty !== undefined) {
    svg.appendChild(svgEl("text", { x: left + 8, y: top + 16, class: "tick" }, options.empty));
  }
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points.map((p, i) => (i === 0 ? "M" : "L") + x(p[0]).toFixed(1) + " " + y(p[1]).toFixed(1)).join(" ");
    svg.appendChild(svgEl("path", { d: d, fill: "none", stroke: s.color, "stroke-width": 2, "stroke-dasharray": s.dash || "" }));
  }
  drawLegend(svg, series, left, top + plotH + 50, plotW);
}
`;
