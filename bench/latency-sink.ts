// bench:latency's SMTP sink, in its own process (an SMTP server is not the service's process: in
// the bench's own, its parsing shared the event loop with the intake and sends it measures).
// Prints `BENCH_SINK_READY <port>`; then `FIRST <variant> <epoch ms>` when the first message to a
// `v<variant>-...` recipient arrives, and `RECEIVED <count>` at most every 20 ms while it grows.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

const now = (): number => performance.timeOrigin + performance.now();
const seen = new Set<number>();
let received = 0;
let reported = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  maxClients: 200,
  onData(stream, session, callback) {
    stream.on("data", () => undefined);
    stream.on("end", () => {
      const at = now();
      received += 1;
      for (const rcpt of session.envelope.rcptTo) {
        const variant = Number(/^v(\d+)-/.exec(rcpt.address)?.[1]);
        if (Number.isInteger(variant) && !seen.has(variant)) {
          seen.add(variant);
          process.stdout.write(`FIRST ${variant} ${at}\n`);
        }
      }
      callback();
    });
  },
});
server.on("error", () => undefined);
setInterval(() => {
  if (received === reported) return;
  reported = received;
  process.stdout.write(`RECEIVED ${received}\n`);
}, 20);
server.listen(0, "127.0.0.1", () => process.stdout.write(`BENCH_SINK_READY ${(server.server.address() as AddressInfo).port}\n`));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
