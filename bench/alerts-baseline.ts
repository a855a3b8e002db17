// bench:alerts baseline, in its own process: nodemailer's pooled SMTP transport (the channel's
// settings) sending pre-rendered messages, the same template and headers as the pipeline's.
// Renders them all, prints `BENCH_BASELINE_READY`, sends on a line on stdin, prints `BENCH_BASELINE_DONE <json>`.
import readline from "node:readline";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { htmlToText } from "../src/messaging/render/html-to-text.ts";
import { DEFAULT_TEMPLATES } from "../src/back_in_stock/templates/default-templates.ts";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { renderFields } from "../src/messaging/render/render.ts";

const count = Number(process.env.BENCH_MESSAGES ?? 20_000);
const url = process.env.SMTP_URL ?? "";
const poolSize = Number(process.env.SMTP_POOL_SIZE ?? 5);
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
    { kind: "text", source: template.email.body },
    { kind: "text", source: template.email.subject },
  ],
  variables,
);
const messages: SendMailOptions[] = rendered.map(([html, subject], n) => {
  if (typeof html !== "string" || typeof subject !== "string") throw new Error(`message ${n + 1} did not render`);
  const i = n + 1;
  const link = variables[n]?.unsubscribe_url ?? "";
  return {
    from: '"Alerts Bench Shop" <no-reply@localhost>',
    to: `baseline-${i}@example.com`,
    subject,
    html,
    text: htmlToText(html),
    messageId: `<baseline-${i}@localhost>`,
    headers: { "List-Unsubscribe": `<${link}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
});
await closeRenderPool();
const transport = nodemailer.createTransport({ url, pool: true, maxConnections: poolSize });
process.stdout.write("BENCH_BASELINE_READY\n");
await new Promise<void>((resolve) => readline.createInterface({ input: process.stdin }).once("line", () => resolve()));
const started = performance.now();
const results = await Promise.allSettled(messages.map((m) => transport.sendMail(m)));
const failed = results.filter((r) => r.status === "rejected").length;
process.stdout.write(`BENCH_BASELINE_DONE ${JSON.stringify({ sent: count - failed, failed, seconds: (performance.now() - started) / 1000 })}\n`);
transport.close();
