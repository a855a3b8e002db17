import type { Template } from "liquidjs";
import { parseTemplate, renderParsed } from "./engine.ts";
import { RENDER_LIMIT_MESSAGE, TEMPLATE_LIMITS, type TemplateKind, exceededLimit } from "./limits.ts";

/**
 * The render pool's thread (pool.ts loads this file by its URL). One job renders a few templates
 * (an e-mail's subject and body) for many recipients' variables, so a batch of alerts costs one
 * message to the thread per chunk, not per render.
 */

export interface RenderField {
  kind: TemplateKind;
  source: string;
}

export interface RenderJob {
  fields: RenderField[];
  variables: Record<string, unknown>[];
  /**
   * Shared with the pool's watchdog: [0] is when the render in progress started, in ms after
   * `base` plus one; 0 between renders. A render past the deadline gets this thread terminated.
   */
  clock: Int32Array;
  base: number;
}

/** A rendered text, or the message of the error that stopped the render. */
export type RenderOutcome = { text: string } | { error: string };

const now = (): number => performance.timeOrigin + performance.now();

/** Parsed templates by kind and source: an alert run sends the same few templates chunk after chunk. */
const parsedCache = new Map<string, Template[]>();
const CACHE_SIZE = 64;

function parsed(field: RenderField): Template[] {
  const key = `${field.kind}:${field.source}`;
  let templates = parsedCache.get(key);
  if (!templates) {
    templates = parseTemplate(field.source, field.kind);
    if (parsedCache.size >= CACHE_SIZE) parsedCache.delete(parsedCache.keys().next().value ?? "");
    parsedCache.set(key, templates);
  }
  return templates;
}

const failure = (error: unknown): RenderOutcome => ({ error: error instanceof Error ? error.message : String(error) });

export default function renderJob(job: RenderJob): RenderOutcome[][] {
  const started = (): number => {
    const at = now();
    Atomics.store(job.clock, 0, Math.max(1, Math.round(at - job.base) + 1));
    return at;
  };
  try {
    // A field beyond a limit keeps its verdict for the rest of the job: each further render would
    // only spend the limit again.
    const verdicts: (RenderOutcome | undefined)[] = [];
    const templates = job.fields.map((field, i) => {
      started();
      try {
        return parsed(field);
      } catch (error) {
        verdicts[i] = failure(error);
        return [];
      }
    });
    return job.variables.map((variables) =>
      job.fields.map((field, i) => {
        const verdict = verdicts[i];
        if (verdict) return verdict;
        for (let attempt = 1; ; attempt++) {
          const start = started();
          try {
            const text = renderParsed(templates[i] ?? [], variables, field.kind);
            // liquidjs checks its limit only between nodes: a last node that ran long (a slow
            // filter chain) finishes past it unnoticed.
            if (now() - start > TEMPLATE_LIMITS.renderMs) throw new Error(RENDER_LIMIT_MESSAGE);
            return { text };
          } catch (error) {
            const limit = exceededLimit(error);
            // Time is the one limit a pause of the thread (GC, a busy core) can trip: one more
            // try before the verdict.
            if (limit === "render" && attempt === 1) continue;
            const outcome = failure(error);
            if (limit) verdicts[i] = outcome;
            return outcome;
          }
        }
      }),
    );
  } finally {
    Atomics.store(job.clock, 0, 0);
  }
}

/** The render pool's second kind of job (pool.ts runFinishJob): finish.ts. */
export { finishJob } from "./finish.ts";
