import type { Issue } from "../../core/errors.ts";
import { TEMPLATE_LIMITS, type TemplateKind, templateIssue } from "./limits.ts";
import { keepComposed } from "../../channels/composed-ahead.ts";
import type { OutboundMessage, RenderedMessage } from "../../channels/types.ts";
import { withText } from "./message-text.ts";
import { type RenderLane, runFinishJob, runRenderJob } from "./pool.ts";
import type { RenderField } from "./worker.ts";

/**
 * How the service renders a merchant's template: on the render pool (pool.ts), within every limit
 * (limits.ts), and never on the calling thread. Errors carry the message liquidjs (or the pool's
 * deadline) gave, so `templateFailure(field, error)` words them as before.
 */

export type { RenderField } from "./worker.ts";

/** Renders sent to the pool in one job: enough to make the message to the thread a small part of each render. */
export const RENDER_JOB_SIZE = 50;

/** Each field rendered for each variables object: outcomes[v][f] is the text or the Error that stopped it. */
export async function renderFields(fields: RenderField[], variables: readonly Record<string, unknown>[], lane: RenderLane = {}): Promise<(string | Error)[][]> {
  const jobs: Promise<(string | Error)[][]>[] = [];
  for (let i = 0; i < variables.length; i += RENDER_JOB_SIZE) {
    jobs.push(runRenderJob(fields, variables.slice(i, i + RENDER_JOB_SIZE), lane).then((rows) => rows.map((row) => row.map((o) => ("text" in o ? o.text : new Error(o.error))))));
  }
  return (await Promise.all(jobs)).flat();
}

/** Renders one template; throws the Error that stopped it. */
export async function renderTemplate(source: string, variables: Record<string, unknown>, kind: TemplateKind = "text", lane: RenderLane = {}): Promise<string> {
  const outcome = (await renderFields([{ kind, source }], [variables], lane))[0]?.[0];
  if (typeof outcome === "string") return outcome;
  throw outcome ?? new Error("the render pool answered nothing");
}

/**
 * Renders with sample data, as a send would (same engine, same limits): a template that cannot
 * render, or goes beyond a limit, is refused when saved. Answers the field's 422 issue, or
 * undefined when the template is fine. A failure of the pool itself throws (a 500, not a 422).
 */
export async function templateProblem(field: string, source: string, kind: TemplateKind, sample: Record<string, unknown>, owner?: string): Promise<Issue | undefined> {
  // A merchant waits for the answer: ahead of the shop's own sends, in its fair share of the threads.
  const outcome = (await renderFields([{ kind, source }], [sample], { interactive: true, ...(owner === undefined ? {} : { owner }) }))[0]?.[0];
  return outcome instanceof Error ? templateIssue(field, outcome) : undefined;
}

/**
 * The e-mails of one finish job: at most RENDER_JOB_SIZE, and at most one render's output limit of
 * html between them (beyond one message), so that a job holds its thread for about one largest
 * message's work, not fifty.
 */
function finishParts<T extends { message: RenderedMessage }>(emails: readonly T[]): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let size = 0;
  for (const email of emails) {
    const length = email.message.html?.length ?? 0;
    if (part.length > 0 && (part.length >= RENDER_JOB_SIZE || size + length > TEMPLATE_LIMITS.outputLength)) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(email);
    size += length;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/**
 * Finishes rendered messages for their sends: each e-mail's text part derived and its MIME
 * composed on the pool (finish.ts; the SMTP and outbox senders send those bytes), a few jobs per
 * batch (finishParts); a text message is finished here (it has its text).
 */
export async function finishMessages(messages: readonly RenderedMessage[], lane: RenderLane = {}): Promise<OutboundMessage[]> {
  const finished: OutboundMessage[] = [];
  const emails: { index: number; message: RenderedMessage }[] = [];
  messages.forEach((message, index) => {
    if (message.channel === "email") emails.push({ index, message });
    else finished[index] = withText(message);
  });
  const jobs: Promise<void>[] = [];
  for (const part of finishParts(emails)) {
    jobs.push(
      runFinishJob(part.map((e) => e.message), lane).then((outcomes) => {
        part.forEach(({ index, message }, n) => {
          const outcome = outcomes[n];
          if (!outcome) throw new Error("the render pool finished fewer messages than it was given");
          const done: OutboundMessage = { ...message, text: outcome.text };
          // A structured clone of a Buffer arrives as a plain Uint8Array: a Buffer over the same bytes.
          const composed = outcome.composed && { ...outcome.composed, raw: Buffer.from(outcome.composed.raw.buffer, outcome.composed.raw.byteOffset, outcome.composed.raw.byteLength) };
          finished[index] = composed ? keepComposed(done, composed) : done;
        });
      }),
    );
  }
  await Promise.all(jobs);
  return finished;
}
