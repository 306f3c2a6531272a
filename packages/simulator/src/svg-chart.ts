/** One line of a chart. */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
}

/** An axis: its range, whether it is logarithmic, and how its tick labels read. */
export interface Axis {
  readonly min: number;
  readonly max: number;
  readonly label: string;
  readonly log?: boolean;
  readonly format?: (value: number) => string;
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

const PAD = { left: 56, right: 12, top: 28, bottom: 44 };

/** Escapes text for HTML and SVG. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function ticks(axis: Axis): number[] {
  if (axis.log === true) {
    const out: number[] = [];
    for (let v = 10 ** Math.floor(Math.log10(axis.min)); v <= axis.max * 1.0001; v *= 10) {
      if (v >= axis.min) out.push(v);
    }
    return out;
  }
  const span = axis.max - axis.min || 1;
  const raw = span / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(axis.min / step) * step; v <= axis.max + step * 1e-9; v += step) {
    out.push(Number(v.toPrecision(12)));
  }
  return out;
}

function scaler(axis: Axis, from: number, to: number): (value: number) => number {
  if (axis.log === true) {
    const lo = Math.log10(axis.min);
    const hi = Math.log10(axis.max);
    return (value) => from + ((Math.log10(Math.max(value, axis.min)) - lo) / (hi - lo || 1)) * (to - from);
  }
  return (value) => from + ((value - axis.min) / (axis.max - axis.min || 1)) * (to - from);
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

/**
 * A self-contained SVG line chart: axes with ticks, one path per series, a legend. No scripts, no
 * external resources, so the report opens anywhere.
 *
 * @example
 * lineChart({ title: "queued", x: { min: 0, max: 20, label: "s" }, y: { min: 0, max: 300, label: "requests" },
 *   series: [{ name: "batch", color: "#d97706", points: [[0, 300], [20, 0]] }] });
 */
export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 520;
  const height = spec.height ?? 260;
  const sx = scaler(spec.x, PAD.left, width - PAD.right);
  const sy = scaler(spec.y, height - PAD.bottom, PAD.top);
  const fx = spec.x.format ?? String;
  const fy = spec.y.format ?? String;
  const grid = [
    ...ticks(spec.x).map(
      (v) =>
        `<line x1="${sx(v).toFixed(1)}" x2="${sx(v).toFixed(1)}" y1="${PAD.top}" y2="${height - PAD.bottom}" stroke="#e5e5e5"/>` +
        `<text x="${sx(v).toFixed(1)}" y="${height - PAD.bottom + 14}" text-anchor="middle">${escapeXml(fx(v))}</text>`,
    ),
    ...ticks(spec.y).map(
      (v) =>
        `<line x1="${PAD.left}" x2="${width - PAD.right}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}" stroke="#e5e5e5"/>` +
        `<text x="${PAD.left - 6}" y="${(sy(v) + 4).toFixed(1)}" text-anchor="end">${escapeXml(fy(v))}</text>`,
    ),
  ];
  const lines = spec.series.map(
    (series) =>
      `<path d="${pathOf(series, sx, sy, spec.steps === true)}" fill="none" stroke="${series.color}" stroke-width="1.8"` +
      `${series.dashed === true ? ' stroke-dasharray="5 3"' : ""}><title>${escapeXml(series.name)}</title></path>`,
  );
  const legend = spec.series.map(
    (series, index) =>
      `<g transform="translate(${PAD.left + 8 + index * 130},${PAD.top + 10})">` +
      `<line x1="0" x2="18" y1="0" y2="0" stroke="${series.color}" stroke-width="2"${series.dashed === true ? ' stroke-dasharray="5 3"' : ""}/>` +
      `<text x="22" y="4">${escapeXml(series.name)}</text></g>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    // Presentation attributes rather than CSS, so the chart looks the same outside the report too.
    `<g font-family="system-ui, sans-serif" font-size="11" fill="#333">`,
    `<text x="${PAD.left}" y="16" font-size="12.5" font-weight="600">${escapeXml(spec.title)}</text>`,
    ...grid,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${width - PAD.left - PAD.right}" height="${height - PAD.top - PAD.bottom}" fill="none" stroke="#999"/>`,
    ...lines,
    ...legend,
    `<text x="${(PAD.left + width - PAD.right) / 2}" y="${height - 8}" text-anchor="middle">${escapeXml(spec.x.label)}</text>`,
    `<text transform="translate(14,${(PAD.top + height - PAD.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.y.label)}</text>`,
    "</g>",
    "</svg>",
  ].join("\n");
}
