import type { Db } from "../core/db.ts";
import { esc, time } from "./html.ts";
import { workSince } from "./work.ts";

/**
 * The overview's history graph: processed and failed per bucket over the last hour, day or week,
 * of every kind of work (src/ops/work.ts) or one task, drawn on the server as inline SVG (no
 * script, no library, nothing from a CDN; the CSP allows it as it is part of the page).
 */

export const RANGES = {
  "1h": { label: "1 h", bucketSeconds: 60, buckets: 60 },
  "24h": { label: "24 h", bucketSeconds: 20 * 60, buckets: 72 },
  "7d": { label: "7 d", bucketSeconds: 2 * 60 * 60, buckets: 84 },
} as const;
export type GraphRange = keyof typeof RANGES;

export function rangeOf(value: string | undefined): GraphRange {
  return value !== undefined && Object.hasOwn(RANGES, value) ? (value as GraphRange) : "1h";
}

export interface Graph {
  range: GraphRange;
  /** The task shown, or undefined for every task together. */
  task: string | undefined;
  bucket_seconds: number;
  buckets: { start: Date; processed: number; failed: number }[];
  /** Every task that did work in the range, with its totals (the graph's selector). */
  tasks: { task: string; kind: string; processed: number; failed: number }[];
}

export async function loadGraph(db: Db, range: GraphRange, task: string | undefined, now = Date.now()): Promise<Graph> {
  const { bucketSeconds, buckets } = RANGES[range];
  const last = Math.floor(now / 1000 / bucketSeconds);
  const first = last - buckets + 1;
  const { rows } = await db.query<{ kind: string; task: string; b: string; processed: number; failed: number }>(
    `select kind, task, floor(extract(epoch from at) / $2)::bigint::text as b,
       count(*) filter (where ok)::int as processed, count(*) filter (where not ok)::int as failed
     from (${workSince("to_timestamp($1::float8)")}) w group by 1, 2, 3`,
    [first * bucketSeconds, bucketSeconds],
  );
  const series = Array.from({ length: buckets }, (_, i) => ({ start: new Date((first + i) * bucketSeconds * 1000), processed: 0, failed: 0 }));
  const totals = new Map<string, { task: string; kind: string; processed: number; failed: number }>();
  for (const row of rows) {
    const index = Number(row.b) - first;
    if (index < 0 || index >= buckets) continue;
    const total = totals.get(row.task) ?? { task: row.task, kind: row.kind, processed: 0, failed: 0 };
    total.processed += row.processed;
    total.failed += row.failed;
    totals.set(row.task, total);
    if (task !== undefined && row.task !== task) continue;
    const bucket = series[index];
    if (!bucket) continue;
    bucket.processed += row.processed;
    bucket.failed += row.failed;
  }
  return { range, task, bucket_seconds: bucketSeconds, buckets: series, tasks: [...totals.values()].sort((a, b) => a.task.localeCompare(b.task)) };
}

const WIDTH = 760;
const HEIGHT = 220;
const LEFT = 44;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 24;

function tick(date: Date, range: GraphRange): string {
  const iso = time(date);
  return range === "7d" ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** The graph as inline SVG: per bucket a bar of processed (green) under failed (red), each with its counts on hover. */
export function graphSvg(graph: Graph): string {
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const max = Math.max(1, ...graph.buckets.map((b) => b.processed + b.failed));
  const step = plotW / graph.buckets.length;
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const bars = graph.buckets
    .map((b, i) => {
      const x = LEFT + i * step;
      const w = Math.max(1, step - 1);
      const hp = (b.processed / max) * plotH;
      const hf = (b.failed / max) * plotH;
      const label = `${time(b.start)}: ${b.processed} processed, ${b.failed} failed`;
      return `<g class="bucket" data-start="${esc(b.start.toISOString())}" data-processed="${b.processed}" data-failed="${b.failed}"><title>${esc(label)}</title>`
        + `<rect class="processed" fill="#3b9c4a" x="${x.toFixed(1)}" y="${(TOP + plotH - hp).toFixed(1)}" width="${w.toFixed(1)}" height="${hp.toFixed(1)}"/>`
        + `<rect class="failed" fill="#d23c3c" x="${x.toFixed(1)}" y="${(TOP + plotH - hp - hf).toFixed(1)}" width="${w.toFixed(1)}" height="${hf.toFixed(1)}"/></g>`;
    })
    .join("");
  const grid = [0, 0.5, 1]
    .map((f) => {
      const v = Math.round(max * f);
      return `<line class="grid" stroke="#eee" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/><text x="${LEFT - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v}</text>`;
    })
    .join("");
  const n = graph.buckets.length;
  const ticks = [0, Math.floor(n / 2), n - 1]
    .map((i) => {
      const b = graph.buckets[i];
      return b ? `<text x="${(LEFT + i * step + step / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${esc(tick(b.start, graph.range))}</text>` : "";
    })
    .join("");
  const title = `Processed and failed per ${graph.bucket_seconds >= 3600 ? `${graph.bucket_seconds / 3600} h` : `${graph.bucket_seconds / 60} min`}, last ${RANGES[graph.range].label}${graph.task ? `, ${graph.task}` : ", every task"}`;
  return `<svg id="history-graph" class="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="history-graph-title" data-range="${esc(graph.range)}" data-task="${esc(graph.task ?? "")}">
<title id="history-graph-title">${esc(title)}</title>${grid}<line class="axis" stroke="#999" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + plotH}" y2="${TOP + plotH}"/>${bars}${ticks}</svg>`;
}

const graphLink = (range: GraphRange, task: string | undefined) => {
  const q = new URLSearchParams({ range });
  if (task) q.set("task", task);
  return `/ops?${q.toString()}#history`;
};

/** The graph's section: the range selector, the task selector (with each task's totals) and the SVG. */
export function renderGraph(graph: Graph): string {
  const ranges = (Object.keys(RANGES) as GraphRange[])
    .map((r) => `<a href="${esc(graphLink(r, graph.task))}" data-range="${esc(r)}"${r === graph.range ? ' aria-current="true"' : ""}>${esc(RANGES[r].label)}</a>`)
    .join("");
  const sum = graph.buckets.reduce((a, b) => ({ processed: a.processed + b.processed, failed: a.failed + b.failed }), { processed: 0, failed: 0 });
  const rows = graph.tasks
    .map((t) => `<tr data-task="${esc(t.task)}"${t.task === graph.task ? ' aria-current="true"' : ""}><td>${esc(t.kind)}</td><td><a href="${esc(graphLink(graph.range, t.task))}">${esc(t.task)}</a></td><td>${esc(t.processed)}</td><td>${esc(t.failed)}</td></tr>`)
    .join("\n");
  return `<section id="history"><h2>History</h2>
<p class="ranges" id="graph-ranges">Range: ${ranges} · Task: ${graph.task ? `<strong id="graph-task">${esc(graph.task)}</strong> (<a href="${esc(graphLink(graph.range, undefined))}">every task</a>)` : '<strong id="graph-task">every task</strong>'}</p>
<p class="legend"><span><span class="sw processed"></span>processed <strong id="graph-processed">${esc(sum.processed)}</strong></span><span><span class="sw failed"></span>failed <strong id="graph-failed">${esc(sum.failed)}</strong></span></p>
${graphSvg(graph)}
<table id="graph-tasks"><thead><tr><th>kind</th><th>task</th><th>processed</th><th>failed</th></tr></thead><tbody>${rows || '<tr class="empty"><td colspan="4">Nothing processed in this range.</td></tr>'}</tbody></table>
</section>`;
}
