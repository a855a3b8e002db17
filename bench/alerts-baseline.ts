// bench:alerts baseline, in its own process: nodemailer's pooled SMTP transport (the channel's
// settings) sending pre-rendered messages, the same bytes as the pipeline's: the same template
// rendered as html, wrapped in the default e-mail layout every shop starts with (the text part
// derived from the whole, as wrapInLayout does), the same headers, composed per send as the SMTP
// channel composes (composeEmail, src/channels/email-mime.ts) and handed to the pool as `raw`.
// Only the sending (composition included) is timed.
// Renders them all, prints `BENCH_BASELINE_READY`; then, for each line on stdin, sends them all
// and prints `BENCH_BASELINE_DONE <json>`:
// - `bounded`: at most SEND_CONCURRENCY sends in flight, as the pipeline has (p-limit,
//   src/messaging/ledger/send.ts): the honest baseline;
// - `unbounded`: every message handed to the pool at once, for reference;
// - `composer`: bounded, but each message given to nodemailer as mail options, composed by its
//   MailComposer (how the channel sent until decision 0182), for reference;
// - `warmup <n>`: the first n, bounded, unmeasured (decision 0238): bench:alerts warms the sender
//   once before its rounds, as it warms each pipeline worker, so both sides are measured warm.
// bench:alerts starts one per size against its sink, and one more (BENCH_PROVIDER_SIGNUPS
// messages) against the sink that answers each message after BENCH_PROVIDER_LATENCY_MS
// (decision 0237): the same sender, bounded the same way; only SMTP_URL differs.
import readline from "node:readline";
import nodemailer, { type SendMailOptions } from "nodemailer";
import pLimit from "p-limit";
import { DEFAULT_EMAIL_LAYOUT, prepareLayout, wrapInLayout } from "../src/account/layout.ts";
import { composeEmail } from "../src/channels/email-mime.ts";
import type { OutboundMessage } from "../src/channels/types.ts";
import { htmlToText } from "../src/messaging/render/html-to-text.ts";
import { DEFAULT_TEMPLATES } from "../src/back_in_stock/templates/default-templates.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { renderFields } from "../src/messaging/render/render.ts";
import { positiveIntEnv } from "./lib.ts";

const count = positiveIntEnv("BENCH_MESSAGES", 20_000);
const url = process.env.SMTP_URL ?? "";
const poolSize = positiveIntEnv("SMTP_POOL_SIZE", 5);
const concurrency = positiveIntEnv("SEND_CONCURRENCY", 10);
const template = DEFAULT_TEMPLATES.initial.en;
if (!template) throw new Error("no template");

const variables = Array.from({ length: count }, (_, n) => ({
  shop: { name: "Alerts Bench Shop", url: "https://alerts-bench.platform.local" },
  customer: { first_name: "", email: `baseline-${n + 1}@example.com`, phone: "" },
  product: { title: "Bench Tee", url: "https://alerts-bench.platform.local/products/product-1?variant=1", image_url: "" },
  variant: { title: "Size 1", sku: "SKU-1", price: "10.00" },
  unsubscribe_url: `http://127.0.0.1:3000/back_in_stock/unsubscribe?signup=${n + 1}&sig=x`,
}));
// On the render pool in batches, as the pipeline renders.
const rendered = await renderFields(
  [
    { kind: "html", source: template.email.body },
    { kind: "text", source: template.email.subject },
  ],
  variables,
);
const layout = await prepareLayout(DEFAULT_EMAIL_LAYOUT, { name: "Alerts Bench Shop", url: "https://alerts-bench.platform.local" });
const FROM = '"Alerts Bench Shop" <no-reply@localhost>';
const messages: OutboundMessage[] = rendered.map(([html, subject], n) => {
  if (typeof html !== "string" || typeof subject !== "string") throw new Error(`message ${n + 1} did not render`);
  const i = n + 1;
  const link = variables[n]?.unsubscribe_url ?? "";
  const message = wrapInLayout(
    {
      id: `baseline-${i}`,
      channel: "email",
      to: `baseline-${i}@example.com`,
      subject: subject.replace(/\s+/g, " ").trim(),
      html,
      text: htmlToText(html),
      headers: { "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    },
    layout,
  );
  return message;
});
variables.length = 0;
await closeRenderPool();
/** The message as nodemailer's mail options (the `composer` reference). */
function mailOptions(m: OutboundMessage): SendMailOptions {
  return { from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: `<${m.id}@localhost>`, headers: { ...m.headers } };
}

const transport = nodemailer.createTransport({ url, pool: true, maxConnections: poolSize });
process.stdout.write("BENCH_BASELINE_READY\n");

let round = 0;
for await (const line of readline.createInterface({ input: process.stdin })) {
  const [mode = "", size] = line.trim().split(" ");
  if (mode !== "bounded" && mode !== "unbounded" && mode !== "composer" && mode !== "warmup") throw new Error(`unknown baseline mode ${mode}`);
  round += 1;
  // `warmup <n>`: the first n messages, bounded, unmeasured, so that every measured run is a warm process's, as the pipeline's worker is (decision 0238).
  const warmup = Number(size);
  if (mode === "warmup" && !(Number.isInteger(warmup) && warmup > 0)) throw new Error(`warmup needs a positive number of messages, got ${String(size)}`);
  const batch = mode === "warmup" ? messages.slice(0, Math.min(count, warmup)) : messages;
  // A message id per round, so that the sink counts each round's messages as distinct.
  const send = (m: OutboundMessage) => {
    const message = { ...m, id: `baseline-${round}-${m.id}` };
    if (mode === "composer") return transport.sendMail(mailOptions(message));
    const mail = composeEmail(message, FROM);
    return transport.sendMail({ envelope: mail.envelope, raw: mail.raw, messageId: mail.messageId });
  };
  const limit = pLimit(concurrency);
  const started = performance.now();
  const results = await Promise.allSettled(batch.map((m) => (mode === "unbounded" ? send(m) : limit(() => send(m)))));
  const failed = results.filter((r) => r.status === "rejected").length;
  process.stdout.write(`BENCH_BASELINE_DONE ${JSON.stringify({ mode, sent: batch.length - failed, failed, seconds: (performance.now() - started) / 1000 })}\n`);
}
transport.close();
