import { type Axis, axisTitle, scaler, textWidth, tickFormatter, ticks } from "./chart-axis.js";

export type { Axis } from "./chart-axis.js";

/** One line of a chart. */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
}

/** What {@link lineChart} draws. */
export interface ChartSpec {
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly Series[];
  readonly width?: number;
  readonly height?: number;
  /** Draw lines as steps (for counts sampled over time). */
  readonly steps?: boolean;
}

/** Where the parts of a chart go, computed from what its labels need. */
interface Layout {
  readonly width: number;
  readonly height: number;
  /** The plot area: data, grid and frame stay inside it. */
  readonly plot: {
    readonly left: number;
    readonly right: number;
    readonly top: number;
    readonly bottom: number;
  };
  readonly legend: readonly { readonly x: number; readonly y: number; readonly series: Series }[];
  readonly title: string;
}

const FONT = 11;
const TITLE_FONT = 12.5;
const MARGIN = 6;
const LEGEND_ROW = 16;
const LEGEND_SWATCH = 22;

/** Escapes text for HTML and SVG. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fitTitle(title: string, room: number): string {
  if (textWidth(title, TITLE_FONT) <= room) return title;
  let cut = title;
  while (cut.length > 1 && textWidth(`${cut}…`, TITLE_FONT) > room) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Legend entries in rows from `left`, wrapping before `right`; returns them and the rows used. */
function legendRows(series: readonly Series[], left: number, right: number, top: number) {
  const legend: { x: number; y: number; series: Series }[] = [];
  let x = left;
  let row = 0;
  for (const entry of series) {
    const entryWidth = LEGEND_SWATCH + textWidth(entry.name, FONT);
    if (x > left && x + entryWidth > right) {
      x = left;
      row++;
    }
    legend.push({ x, y: top + row * LEGEND_ROW, series: entry });
    x += entryWidth + 16;
  }
  return { legend, rows: series.length === 0 ? 0 : row + 1 };
}

/**
 * Lays a chart out around its labels: the left margin fits the widest y tick label and the axis title,
 * the right margin half the last x tick label, and the legend gets a band of its own between the title
 * and the plot, so it never covers a line.
 */
function layout(spec: ChartSpec): Layout {
  const width = spec.width ?? 520;
  const height = spec.height ?? 260;
  const fx = tickFormatter(spec.x);
  const fy = tickFormatter(spec.y);
  const yLabels = Math.max(0, ...ticks(spec.y).map((v) => textWidth(fy(v), FONT)));
  const xTicks = ticks(spec.x);
  const firstX = xTicks.length === 0 ? 0 : textWidth(fx(xTicks[0]!), FONT) / 2;
  const lastX = xTicks.length === 0 ? 0 : textWidth(fx(xTicks.at(-1)!), FONT) / 2;
  const left = Math.max(MARGIN + FONT + 8 + yLabels + 6, MARGIN + firstX);
  const right = width - Math.max(12, lastX + MARGIN);
  const { legend, rows } = legendRows(spec.series, left, width - MARGIN, 24 + FONT);
  const top = 24 + rows * LEGEND_ROW + 8;
  const bottom = height - (MARGIN + FONT + 8 + FONT + 8);
  const title = fitTitle(spec.title, width - 2 * MARGIN);
  return { width, height, plot: { left, right, top, bottom }, legend, title };
}

function pathOf(
  series: Series,
  sx: (v: number) => number,
  sy: (v: number) => number,
  steps: boolean,
): string {
  const parts: string[] = [];
  let previousY: number | undefined;
  for (const [x, y] of series.points) {
    const px = sx(x).toFixed(1);
    const py = sy(y).toFixed(1);
    if (parts.length === 0) parts.push(`M${px},${py}`);
    else if (steps && previousY !== undefined) parts.push(`H${px}V${py}`);
    else parts.push(`L${px},${py}`);
    previousY = y;
  }
  return parts.join("");
}

const dash = (series: Series): string => (series.dashed === true ? ' stroke-dasharray="5 3"' : "");

function gridOf(spec: ChartSpec, box: Layout["plot"], sx: (v: number) => number, sy: (v: number) => number) {
  const fx = tickFormatter(spec.x);
  const fy = tickFormatter(spec.y);
  return [
    ...ticks(spec.x).map(
      (v) =>
        `<line x1="${sx(v).toFixed(1)}" x2="${sx(v).toFixed(1)}" y1="${box.top}" y2="${box.bottom}" stroke="#e5e5e5"/>` +
        `<text x="${sx(v).toFixed(1)}" y="${box.bottom + 14}" text-anchor="middle">${escapeXml(fx(v))}</text>`,
    ),
    ...ticks(spec.y).map(
      (v) =>
        `<line x1="${box.left}" x2="${box.right}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}" stroke="#e5e5e5"/>` +
        `<text x="${box.left - 6}" y="${(sy(v) + 4).toFixed(1)}" text-anchor="end">${escapeXml(fy(v))}</text>`,
    ),
  ];
}

/**
 * A self-contained SVG line chart: axes with ticks, one path per series, a legend in its own band
 * above the plot. Time axes (`time: true`, values in ms) read in a unit chosen by their range. The
 * margins are sized from the labels, so no label is clipped. No scripts, no external resources, so the
 * report opens anywhere.
 *
 * @example
 * lineChart({ title: "queued", x: { min: 0, max: 20_000, label: "time", time: true },
 *   y: { min: 0, max: 300, label: "requests" },
 *   series: [{ name: "batch", color: "#d97706", points: [[0, 300], [20_000, 0]] }] });
 */
export function lineChart(spec: ChartSpec): string {
  const chart = layout(spec);
  const { width, height, plot } = chart;
  const sx = scaler(spec.x, plot.left, plot.right);
  const sy = scaler(spec.y, plot.bottom, plot.top);
  const lines = spec.series.map(
    (series) =>
      `<path d="${pathOf(series, sx, sy, spec.steps === true)}" fill="none" stroke="${series.color}" stroke-width="1.8"` +
      `${dash(series)}><title>${escapeXml(series.name)}</title></path>`,
  );
  const legend = chart.legend.map(
    ({ x, y, series }) =>
      `<line x1="${x.toFixed(1)}" x2="${(x + 18).toFixed(1)}" y1="${y - 4}" y2="${y - 4}" stroke="${series.color}" stroke-width="2"${dash(series)}/>` +
      `<text x="${(x + LEGEND_SWATCH).toFixed(1)}" y="${y}">${escapeXml(series.name)}</text>`,
  );
  const middleY = (plot.top + plot.bottom) / 2;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    // Presentation attributes rather than CSS, so the chart looks the same outside the report too.
    `<g font-family="system-ui, sans-serif" font-size="${FONT}" fill="#333">`,
    `<text x="${MARGIN}" y="16" font-size="${TITLE_FONT}" font-weight="600">${escapeXml(chart.title)}</text>`,
    ...legend,
    ...gridOf(spec, plot, sx, sy),
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.right - plot.left}" height="${plot.bottom - plot.top}" fill="none" stroke="#999"/>`,
    ...lines,
    `<text x="${((plot.left + plot.right) / 2).toFixed(1)}" y="${height - MARGIN}" text-anchor="middle">${escapeXml(axisTitle(spec.x))}</text>`,
    `<text transform="translate(${MARGIN + FONT},${middleY.toFixed(1)}) rotate(-90)" text-anchor="middle">${escapeXml(axisTitle(spec.y))}</text>`,
    "</g>",
    "</svg>",
  ].join("\n");
}
