/**
 * The report's figures, drawn as inline SVG by this module alone (no library, nothing fetched): bars, a heatmap, line
 * curves, stacked bars and small histograms. Every label is escaped; sizes follow the data.
 */
import { esc, pct } from "./html.ts";

const FONT = `font-family="sans-serif" font-size="12"`;

/**
 * Qualitative colours that read on white, for series and keys: `nameColor` picks one by a name's hash (Tableau 10's
 * readable eight and six darker ones from d3's category20b).
 */
export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#bcbd22",
  "#17becf",
  "#393b79",
  "#637939",
  "#8c6d31",
  "#843c39",
  "#7b4173",
];

/** FNV-1a from `seed`, then murmur3's finaliser, 32 bits: a stable hash whose every bit depends on every character. */
function hashName(name: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of new TextEncoder().encode(name)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The seed of the colour hash: chosen once so that the built-in profiles most often compared (opencode and its
 * +exact-edit variant, pi and its variant, claude-code, mini-swe-agent, qwen-code, codex, gemini-cli, terminus-2,
 * openhands-sdk, swe-agent) get 12 different colours of `PALETTE`.
 */
const COLOR_SEED = 0x811c9dc5 ^ 35492;

/**
 * The colour of a series by its name alone: the same name gets the same colour in every report, whatever else the
 * report shows. A profile's version is left out (`opencode@1.18.33+exact-edit` → `opencode+exact-edit`), so an
 * upgrade keeps the colour; two versions in one report then differ by marker (`nameMarker`), most often.
 */
export function nameColor(name: string): string {
  const at = name.indexOf("@");
  const key = at < 0 ? name : name.slice(0, at) + (name.slice(at).match(/\+.*$/)?.[0] ?? "");
  return PALETTE[hashName(key, COLOR_SEED) % PALETTE.length];
}

/** The marker of a series by its whole name (version included). */
export function nameMarker(name: string): "circle" | "square" | "triangle" | "diamond" {
  return (["circle", "square", "triangle", "diamond"] as const)[hashName(name) % 4];
}

function marker(shape: ReturnType<typeof nameMarker>, x: number, y: number, fill: string, title: string): string {
  const t = `<title>${esc(title)}</title>`;
  const f = (n: number) => n.toFixed(1);
  switch (shape) {
    case "circle":
      return `<circle cx="${f(x)}" cy="${f(y)}" r="3.5" fill="${fill}">${t}</circle>`;
    case "square":
      return `<rect x="${f(x - 3.5)}" y="${f(y - 3.5)}" width="7" height="7" fill="${fill}">${t}</rect>`;
    case "triangle":
      return `<polygon points="${f(x)},${f(y - 4.5)} ${f(x + 4.5)},${f(y + 3.5)} ${f(x - 4.5)},${
        f(y + 3.5)
      }" fill="${fill}">${t}</polygon>`;
    case "diamond":
      return `<polygon points="${f(x)},${f(y - 5)} ${f(x + 5)},${f(y)} ${f(x)},${f(y + 5)} ${f(x - 5)},${
        f(y)
      }" fill="${fill}">${t}</polygon>`;
  }
}

/** The colour of a pass rate: red at 0, amber at 0.5, green at 1; grey when there is no rate. */
export function rateColor(rate: number | null): string {
  if (rate === null) return "#ddd";
  const r = Math.max(0, Math.min(1, rate));
  // Two linear ramps through amber, in RGB: enough for a heatmap read by eye.
  const [a, b, t] = r < 0.5 ? [[198, 40, 40], [249, 168, 37], r * 2] : [[249, 168, 37], [46, 125, 50], r * 2 - 1];
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * t));
  return `rgb(${c.join(",")})`;
}

function svg(width: number, height: number, body: string, label: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(width)}" height="${Math.ceil(height)}" ` +
    `viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" ${FONT} role="img" aria-label="${esc(label)}">` +
    `<title>${esc(label)}</title>${body}</svg>`;
}

function link(href: string | undefined, body: string): string {
  return href ? `<a href="${esc(href)}">${body}</a>` : body;
}

/** Room for the longest of `labels` left of a bar (~6.6 px a character at 12 px), within 120..520 px. */
function labelWidth(labels: string[]): number {
  return Math.round(Math.min(520, Math.max(120, 12 + 6.6 * Math.max(0, ...labels.map((l) => l.length)))));
}

/** One bar of `bars`. */
export interface Bar {
  /** The label left of the bar. */
  label: string;
  /** The bar's length, 0..1 (null: no data, drawn empty). */
  rate: number | null;
  /** Text right of the percentage. */
  note: string;
  /** Where the label links to. */
  href?: string;
}

/** Horizontal bars, one per label, length = rate (0..1), with the percentage and a note beside it. */
export function bars(items: Bar[], label: string): string {
  const row = 22, labelW = labelWidth(items.map((it) => it.label)), barW = 360;
  const out = items.map((it, i) => {
    const y = i * row + 4;
    const w = Math.max(0, Math.min(1, it.rate ?? 0)) * barW;
    return link(it.href, `<text x="${labelW - 6}" y="${y + 14}" text-anchor="end">${esc(it.label)}</text>`) +
      `<rect x="${labelW}" y="${y + 2}" width="${barW}" height="${row - 6}" fill="#eee"/>` +
      `<rect x="${labelW}" y="${y + 2}" width="${w.toFixed(1)}" height="${row - 6}" fill="${rateColor(it.rate)}"/>` +
      `<text x="${labelW + barW + 8}" y="${y + 14}">${esc(pct(it.rate))} ${esc(it.note)}</text>`;
  }).join("");
  return svg(labelW + barW + 280, items.length * row + 8, out, label);
}

/** One cell of `heatmap`. */
export interface Cell {
  /** The colour's rate, 0..1 (null: no samples, drawn grey). */
  rate: number | null;
  /** The text in the cell. */
  text: string;
  /** The tooltip. */
  title: string;
  /** Where the cell links to. */
  href?: string;
}

/** A grid of cells, rows labelled left and columns labelled on top (slanted, so long task names fit). */
export function heatmap(rows: string[], cols: string[], cell: (r: number, c: number) => Cell, label: string): string {
  const cw = 46, ch = 22;
  const labelW = Math.min(260, 12 + 6.6 * Math.max(0, ...rows.map((r) => r.length)));
  const longest = Math.max(0, ...cols.map((c) => c.length));
  // Column labels are slanted 40°: they rise by sin 40° and run right by cos 40° of their length (~6.6 px a char).
  const top = Math.min(200, 14 + 4.3 * longest);
  const right = Math.min(300, 5.1 * longest);
  let body = "";
  cols.forEach((c, j) => {
    const x = labelW + j * cw + cw / 2;
    body += `<text transform="translate(${x},${top - 6}) rotate(-40)">${esc(c)}</text>`;
  });
  rows.forEach((r, i) => {
    const y = top + i * ch;
    body += `<text x="${labelW - 6}" y="${y + 15}" text-anchor="end">${esc(r)}</text>`;
    cols.forEach((_, j) => {
      const v = cell(i, j);
      const x = labelW + j * cw;
      const dark = v.rate !== null && (v.rate < 0.2 || v.rate > 0.8);
      body += link(
        v.href,
        `<g><title>${esc(v.title)}</title><rect x="${x + 1}" y="${y + 1}" width="${cw - 2}" height="${ch - 2}" ` +
          `fill="${rateColor(v.rate)}"/><text x="${x + cw / 2}" y="${y + 15}" text-anchor="middle" ` +
          `fill="${dark ? "#fff" : "#222"}" font-size="11">${esc(v.text)}</text></g>`,
      );
    });
  });
  return svg(labelW + cols.length * cw + right, top + rows.length * ch + 6, body, label);
}

/** One line of `curves`. */
export interface Series {
  /** The legend's name; its colour and marker follow from it (`nameColor`, `nameMarker`). */
  name: string;
  /** [x, y] points, y in 0..1, in x order. */
  points: [number, number][];
  /** A colour instead of the name's (for a series that is no profile, such as the total). */
  color?: string;
}

/**
 * Lines over x = 1..xMax with y in 0..1, a marker on each value, gridlines every 0.25 and a legend naming every series.
 * Series with the same points would hide each other: each one after the first is shifted right by a few pixels and
 * dashed, and its legend entry says which series it equals.
 */
export function curves(series: Series[], xMax: number, axis: { x: string; y: string }, label: string): string {
  const w = 420, h = 240, left = 44, bottom = 34, top = 10, legendW = 300;
  const xs = (x: number) => left + (xMax <= 1 ? w / 2 : ((x - 1) / (xMax - 1)) * w);
  const ys = (y: number) => top + (1 - y) * h;
  let body = "";
  for (const g of [0, 0.25, 0.5, 0.75, 1]) {
    body += `<line x1="${left}" x2="${left + w}" y1="${ys(g)}" y2="${ys(g)}" stroke="#e4e4e4"/>` +
      `<text x="${left - 6}" y="${ys(g) + 4}" text-anchor="end">${g.toFixed(2)}</text>`;
  }
  const step = Math.max(1, Math.ceil(xMax / 12));
  for (let x = 1; x <= xMax; x += step) {
    body += `<text x="${xs(x)}" y="${top + h + 16}" text-anchor="middle">${x}</text>`;
  }
  body += `<line x1="${left}" x2="${left + w}" y1="${top + h}" y2="${top + h}" stroke="#888"/>` +
    `<text x="${left + w / 2}" y="${top + h + 30}" text-anchor="middle">${esc(axis.x)}</text>` +
    `<text transform="translate(12,${top + h / 2}) rotate(-90)" text-anchor="middle">${esc(axis.y)}</text>`;
  const seen = new Map<string, { first: string; count: number }>();
  series.forEach((s, i) => {
    const color = s.color ?? nameColor(s.name);
    const shape = s.color ? "circle" : nameMarker(s.name);
    const sig = JSON.stringify(s.points);
    const same = seen.get(sig);
    const dx = same ? same.count * 5 : 0;
    if (same) same.count++;
    else seen.set(sig, { first: s.name, count: 1 });
    const pts = s.points.map(([x, y]) => `${(xs(x) + dx).toFixed(1)},${ys(y).toFixed(1)}`);
    if (pts.length > 1) {
      body += `<polyline class="series" data-name="${esc(s.name)}" fill="none" stroke="${color}" stroke-width="2"${
        same ? ` stroke-dasharray="6 3"` : ""
      } points="${pts.join(" ")}"/>`;
    }
    for (const [x, y] of s.points) {
      body += marker(shape, xs(x) + dx, ys(y), color, `${s.name}: ${axis.x} ${x} → ${y.toFixed(3)}`);
    }
    const ly = top + 4 + i * 18;
    body += `<g class="legend-entry">` + marker(shape, left + w + 22, ly + 6, color, s.name) +
      `<line x1="${left + w + 12}" x2="${left + w + 32}" y1="${ly + 6}" y2="${ly + 6}" stroke="${color}" ` +
      `stroke-width="2"${same ? ` stroke-dasharray="6 3"` : ""}/>` +
      `<text x="${left + w + 38}" y="${ly + 10}">${esc(s.name)}${same ? ` (= ${esc(same.first)})` : ""}</text></g>`;
  });
  const height = Math.max(top + h + bottom + 6, top + 10 + series.length * 18);
  return svg(left + w + legendW, height, body, label);
}

/** One bar of `stacked`: its label and its parts' counts by key. */
export interface Stack {
  /** The label left of the bar. */
  label: string;
  /** Count per key. */
  parts: Record<string, number>;
}

/** Horizontal bars split by key (each key's colour by `color`, default `nameColor`), counts inside, a legend below. */
export function stacked(items: Stack[], keys: string[], label: string, color = nameColor): string {
  const row = 22, labelW = labelWidth(items.map((it) => it.label)), barW = 420;
  const colors = new Map(keys.map((k) => [k, color(k)]));
  let body = "";
  items.forEach((it, i) => {
    const y = i * row + 4;
    const total = keys.reduce((a, k) => a + (it.parts[k] ?? 0), 0);
    body += `<text x="${labelW - 6}" y="${y + 14}" text-anchor="end">${esc(it.label)}</text>`;
    let x = labelW;
    for (const k of keys) {
      const n = it.parts[k] ?? 0;
      if (!n) continue;
      const w = total ? (n / total) * barW : 0;
      body += `<g><title>${esc(`${it.label}: ${k} ${n}`)}</title>` +
        `<rect x="${x.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${row - 6}" fill="${colors.get(k)}"/>` +
        (w > 18
          ? `<text x="${(x + w / 2).toFixed(1)}" y="${y + 14}" text-anchor="middle" fill="#fff">${n}</text>`
          : "") +
        `</g>`;
      x += w;
    }
  });
  const ly = items.length * row + 12;
  let lx = labelW;
  for (const k of keys) {
    body += `<rect x="${lx}" y="${ly}" width="12" height="12" fill="${colors.get(k)}"/>` +
      `<text x="${lx + 16}" y="${ly + 10}">${esc(k)}</text>`;
    lx += 28 + 7 * k.length;
  }
  return svg(Math.max(labelW + barW + 20, lx), ly + 20, body, label);
}

/** A small histogram: one column per bin, split into a lower (passes) and an upper (fails) part. */
export function histogram(
  bins: { label: string; low: number; high: number }[],
  names: { low: string; high: string },
  label: string,
): string {
  const bw = 18, h = 80, top = 14, bottom = 18;
  const max = Math.max(1, ...bins.map((b) => b.low + b.high));
  let body = "";
  bins.forEach((b, i) => {
    const x = 4 + i * bw;
    const hl = (b.low / max) * h, hh = (b.high / max) * h;
    body += `<g><title>${esc(`${b.label}: ${b.low} ${names.low}, ${b.high} ${names.high}`)}</title>` +
      `<rect x="${x}" y="${top + h - hl}" width="${bw - 2}" height="${hl}" fill="#59a14f"/>` +
      `<rect x="${x}" y="${top + h - hl - hh}" width="${bw - 2}" height="${hh}" fill="#e15759"/>` +
      `<rect x="${x}" y="${top}" width="${bw - 2}" height="${h}" fill="transparent"/></g>`;
    if (i % Math.max(1, Math.ceil(bins.length / 8)) === 0) {
      body += `<text x="${x + bw / 2}" y="${top + h + 13}" text-anchor="middle" font-size="10">${esc(b.label)}</text>`;
    }
  });
  body += `<text x="4" y="10" font-size="10">max ${max}</text>`;
  return svg(8 + bins.length * bw, top + h + bottom, body, label);
}
