import { type ComposedEmail, composeEmail } from "../../channels/email-mime.ts";
import type { RenderedMessage } from "../../channels/types.ts";
import { withText } from "./message-text.ts";

/**
 * The last steps of a message before its send, run on the render pool's threads (worker.ts,
 * `finishJob`) for a batch of e-mails: the text part derived from the html (htmlToText) and the
 * MIME composed (composeEmail, with the message's own From). On the thread that sends, these were
 * over a tenth of its time per alert, and linear in a body of up to a million characters that
 * a merchant's template writes: the event loop that serves every shop only sends the bytes.
 * Each is linear in the message's size, which the render limits bound (limits.ts), and a job
 * carries at most about one largest message's html (render.ts finishParts), so it holds its thread
 * for tens of milliseconds at worst and has no deadline of its own.
 */

export interface FinishJob {
  messages: RenderedMessage[];
}

/** A message's text part, and its MIME when it could be composed here (else its send composes it, and says why not). */
export interface FinishOutcome {
  text: string;
  composed?: ComposedEmail;
}

export function finishJob(job: FinishJob): FinishOutcome[] {
  return job.messages.map((message) => {
    const finished = withText(message);
    if (finished.channel !== "email" || finished.from === undefined) return { text: finished.text };
    try {
      return { text: finished.text, composed: composeEmail(finished, finished.from) };
    } catch {
      // An address or a header the composer refuses: the send composes it again and fails with the reason.
      return { text: finished.text };
    }
  });
}
