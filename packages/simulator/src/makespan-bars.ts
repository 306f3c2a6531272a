import { formatDuration, formatShare } from "./format.js";
import { makespanVsIdeal } from "./ideal.js";
import type { RunResult } from "./stats.js";
import { escapeXml } from "./svg-chart.js";

/** The parts of a batch makespan, in drawing order. */
const PARTS = [
  { name: "FIFO's makespan", color: "#9ca3af" },
  { name: "chat's own work", color: "#2563eb" },
  { name: "idle slots and caps", color: "#d97706" },
] as const;

const WIDTH = 780;
const LABEL = 150;
const ROW = 30;
const BAR = 18;
const TOP = 26;

/**
 * One horizontal bar per run, on one scale: its batch makespan split into FIFO's makespan, chat's own
 * work (the ideal's extra) and what idle slots and caps added beyond the ideal, each part labelled, and
 * the slot use while anything waited at the end of the row. `results[0]` is the baseline (FIFO).
 *
 * @example
 * html += makespanBars([fifo, scheduled]);
 */
export function makespanBars(results: readonly RunResult[]): string {
  const fifo = results[0];
  if (fifo === undefined || fifo.batch.items === 0) return "";
  const longest = Math.max(1, ...results.map((result) => result.batch.makespanMs));
  const room = WIDTH - LABEL - 210;
  const scale = (ms: number) => (Math.max(0, ms) / longest) * room;
  const rows = results.map((result, index) => {
    const split = makespanVsIdeal(fifo, result);
    const first = Math.min(split.fifoMs, split.actualMs);
    const chat = Math.max(0, Math.min(split.idealMs, split.actualMs) - first);
    const parts = [first, chat, Math.max(0, split.actualMs - first - chat)];
    const y = TOP + index * ROW;
    let x = LABEL;
    const rects = parts.map((ms, part) => {
      const width = scale(ms);
      const rect =
        width <= 0
          ? ""
          : `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${BAR}" fill="${PARTS[part]!.color}">` +
            `<title>${escapeXml(`${PARTS[part]!.name}: ${formatDuration(ms)}`)}</title></rect>`;
      x += width;
      return rect;
    });
    const busy = formatShare(result.slots.utilizationWhileWaiting);
    const note = `${formatDuration(split.actualMs)}, ${split.ratio.toFixed(2)}x ideal, busy ${busy}`;
    return (
      `<text x="${LABEL - 6}" y="${y + 13}" text-anchor="end">${escapeXml(result.label)}</text>${rects.join("")}` +
      `<text x="${(x + 6).toFixed(1)}" y="${y + 13}">${escapeXml(note)}</text>`
    );
  });
  const legend = PARTS.map(
    (part, i) =>
      `<rect x="${LABEL + i * 170}" y="4" width="12" height="12" fill="${part.color}"/>` +
      `<text x="${LABEL + i * 170 + 17}" y="14">${escapeXml(part.name)}</text>`,
  ).join("");
  const height = TOP + results.length * ROW;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ` +
    `font-family="system-ui,sans-serif" font-size="11" role="img" aria-label="batch makespan split">` +
    `${legend}${rows.join("")}</svg>`
  );
}
