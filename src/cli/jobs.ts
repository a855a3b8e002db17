import { parseArgs } from "node:util";
import type { Db } from "../core/db.ts";
import { withTransaction } from "../core/db.ts";
import { type JobRow, type JobStatus, retryJob } from "../core/jobs.ts";
import { type JobDetail, LIST_STATUSES, getJob, listJobs, retry as retryListed } from "../ops/data.ts";
import { isUuid, oneOf, positionals, positiveInteger, usageErrors } from "./args.ts";
import type { CommandParser } from "./context.ts";
import { CliError } from "./errors.ts";
import { printJson, printJsonLine, printNotice, printText } from "./output.ts";
import { formatFields, formatTable, formatTime } from "./table.ts";

const STATUSES: readonly JobStatus[] = ["queued", "running", "completed", "failed", "cancelled"];
const RETRYABLE: readonly JobStatus[] = ["failed", "cancelled", "completed"];
const DEFAULT_LIMIT = 50;

/** A row of `jobs`, every column. */
type JobRecord = JobRow & { updated_at: Date };

function jobIdArgument(args: string[], json: boolean): { id: string; json: boolean } {
  return usageErrors(() => {
    const parsed = parseArgs({
      args,
      options: json ? { json: { type: "boolean", default: false } } : {},
      allowPositionals: true,
      strict: true,
    });
    const [id] = positionals(parsed.positionals, ["JOB_ID"]);
    return { id: id ?? "", json: parsed.values.json === true };
  });
}

/** A graphile-worker queue row's id, as `jobs list --source queue|all` prints it (app jobs have uuids). */
const isQueueId = (id: string): boolean => /^\d{1,18}$/.test(id);

async function findQueueRow(db: Db, id: string): Promise<JobDetail> {
  const row = await getJob(db, "queue", id);
  if (!row) throw new CliError(`Job not found: ${id} (a queue row is removed once it completes)`);
  return row;
}

function printQueueRow(row: JobDetail): void {
  printText(
    formatFields([
      ["source", "queue"],
      ["id", row.id],
      ["task", row.task],
      ["shop_id", row.shop_id ?? "-"],
      ["status", row.status],
      ["attempts", String(row.attempts)],
      ["max_attempts", String(row.max_attempts)],
      ["run_at", row.run_at?.toISOString() ?? "-"],
      ["locked_by", row.locked_by ?? "-"],
      ["created_at", row.created_at.toISOString()],
      ["updated_at", row.updated_at.toISOString()],
      ["key", row.key ?? "-"],
      ["app_job_id", row.app_job_id ?? "-"],
      ["payload", inline(row.payload)],
      ["last_error", row.last_error ?? "-"],
    ]),
  );
}

async function findJob(db: Db, id: string, options: { lock?: boolean } = {}): Promise<JobRecord> {
  if (isUuid(id)) {
    const { rows } = await db.query<JobRecord>(`select * from jobs where id = $1${options.lock ? " for update" : ""}`, [id]);
    if (rows[0]) return rows[0];
  }
  throw new CliError(`Job not found: ${id}`);
}

/** A JSON value on one line; absent values as "-". */
function inline(value: unknown): string {
  if (value === null || value === undefined) return "-";
  return typeof value === "string" ? value : JSON.stringify(value);
}

const SOURCES = ["app", "queue", "all"] as const;

/**
 * jobs list [--source app|queue|all] [--status S] [--kind K] [--shop ID] [--limit N] [--json]: newest first.
 * --source app (the default): the jobs table, every column. queue or all: the ops console's rows
 * (src/ops/data.ts), graphile-worker's queue rows included, filtered the same way.
 */
const list: CommandParser = (args) => {
  const filters = usageErrors(() => {
    const parsed = parseArgs({
      args,
      options: {
        source: { type: "string" },
        status: { type: "string" },
        kind: { type: "string" },
        shop: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
      strict: true,
    });
    positionals(parsed.positionals, []);
    const source = oneOf(parsed.values.source, "source", SOURCES) ?? "app";
    return {
      source,
      status: source === "app" ? oneOf(parsed.values.status, "status", STATUSES) : oneOf(parsed.values.status, "status", LIST_STATUSES),
      kind: parsed.values.kind,
      shop: parsed.values.shop?.trim(),
      limit: positiveInteger(parsed.values.limit, "limit", DEFAULT_LIMIT),
      json: parsed.values.json,
    };
  });
  return {
    ensureSchema: true,
    async run({ pool }) {
      if (filters.shop !== undefined && !isUuid(filters.shop)) throw new CliError(`Shop not found: ${filters.shop}`);
      if (filters.source !== "app") {
        const listed = await listJobs(pool, {
          source: filters.source === "all" ? undefined : filters.source,
          status: filters.status,
          task: filters.kind,
          shop: filters.shop,
          limit: filters.limit,
        });
        if (filters.json) {
          printJson(listed);
          return;
        }
        if (listed.length === 0) {
          printText("No jobs found.");
          return;
        }
        printText(
          formatTable(
            ["source", "id", "task", "shop", "status", "attempts", "created_at", "last_error"],
            listed.map((job) => [
              job.source,
              job.id,
              job.task,
              job.shop_id ?? "-",
              job.status,
              `${job.attempts}/${job.max_attempts}`,
              formatTime(job.created_at),
              job.last_error?.replace(/\s+/g, " ").slice(0, 120) ?? "-",
            ]),
          ),
        );
        if (listed.length === filters.limit) printNotice(`Showing the newest ${filters.limit} jobs; --limit N shows more.`);
        return;
      }
      const { rows } = await pool.query<JobRecord>(
        `select * from jobs
         where ($1::text is null or status = $1)
           and ($2::text is null or kind = $2)
           and ($3::uuid is null or shop_id = $3)
         order by created_at desc, id desc
         limit $4`,
        [filters.status ?? null, filters.kind ?? null, filters.shop ?? null, filters.limit],
      );
      if (filters.json) {
        printJson(rows);
        return;
      }
      if (rows.length === 0) {
        printText("No jobs found.");
        return;
      }
      printText(
        formatTable(
          ["id", "kind", "shop", "status", "processed/total", "attempts", "created_at", "finished_at"],
          rows.map((job) => [
            job.id,
            job.kind,
            job.shop_id ?? "-",
            job.status,
            `${job.processed}/${job.total ?? "-"}`,
            `${job.attempts}/${job.max_attempts}`,
            formatTime(job.created_at),
            formatTime(job.finished_at),
          ]),
        ),
      );
      if (rows.length === filters.limit) printNotice(`Showing the newest ${filters.limit} jobs; --limit N shows more.`);
    },
  };
};

/** jobs show ID [--json]: every column, errors one per line; a queue row's id shows that row. */
const show: CommandParser = (args) => {
  const { id, json } = jobIdArgument(args, true);
  return {
    ensureSchema: true,
    async run({ pool }) {
      if (isQueueId(id)) {
        const row = await findQueueRow(pool, id);
        if (json) printJson(row);
        else printQueueRow(row);
        return;
      }
      const job = await findJob(pool, id);
      if (json) {
        printJson(job);
        return;
      }
      const time = (value: Date | null) => value?.toISOString() ?? "-";
      const errors = Array.isArray(job.errors) ? job.errors : [job.errors];
      printText(
        formatFields([
          ["id", job.id],
          ["kind", job.kind],
          ["shop_id", job.shop_id ?? "-"],
          ["status", job.status],
          ["processed", String(job.processed)],
          ["total", job.total === null ? "-" : String(job.total)],
          ["attempts", String(job.attempts)],
          ["max_attempts", String(job.max_attempts)],
          ["created_at", time(job.created_at)],
          ["started_at", time(job.started_at)],
          ["finished_at", time(job.finished_at)],
          ["updated_at", time(job.updated_at)],
          ["payload", inline(job.payload)],
          ["result", inline(job.result)],
          ["errors", errors.length === 0 ? "(none)" : String(errors.length)],
        ]) + errors.map((error) => `  - ${inline(error)}\n`).join(""),
      );
    },
  };
};

/**
 * jobs retry ID: back to queued with fresh attempts, and its graphile-worker job re-added. A queue
 * row's id: that row rescheduled now with fresh attempts, as the console's retry does (a row that
 * runs an app job is retried as that job).
 */
const retry: CommandParser = (args) => {
  const { id } = jobIdArgument(args, false);
  return {
    ensureSchema: true,
    async run({ pool }) {
      if (isQueueId(id)) {
        await findQueueRow(pool, id);
        const outcome = await withTransaction(pool, (db) => retryListed(db, "queue", id));
        if (!outcome.ok) throw new CliError(outcome.message);
        printJsonLine({ job_id: id, source: "queue", status: "queued" });
        return;
      }
      const retried = await withTransaction(pool, async (db) => {
        const job = await findJob(db, id, { lock: true });
        if (!RETRYABLE.includes(job.status)) {
          throw new CliError(`Job ${job.id} is ${job.status}: only a failed, cancelled or completed job can be retried`);
        }
        const updated = await retryJob(db, job.id);
        if (!updated) throw new CliError(`Job ${job.id} could not be retried: its last run is still finishing on a worker; retry it once that run stops`);
        return updated;
      });
      printJsonLine({ job_id: retried.id, status: retried.status });
    },
  };
};

export const jobsCommands: Record<string, CommandParser> = { list, show, retry };
