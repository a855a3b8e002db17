import { describe, expect, it } from "vitest";
import { type ChannelSender, type OutboundMessage, prioritized } from "../src/channels/index.ts";

// A restock's first messages go ahead of the follow-ups already waiting for a connection.

describe("the channel's send queue", () => {
  it("sends at most its connections at once, and a higher priority first among those waiting", async () => {
    const order: string[] = [];
    let inFlight = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const slow: ChannelSender = {
      channel: "email",
      async send(message) {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise<void>((resolve) => releases.push(resolve));
        inFlight -= 1;
        order.push(message.id);
        return { providerMessageId: message.id, accepted: true };
      },
      close: async () => undefined,
    };
    const queue = prioritized(slow, 2);
    const message = (id: string): OutboundMessage => ({ id, to: `${id}@example.com`, channel: "email", text: "x" });
    const sends = ["follow-1", "follow-2", "follow-3", "follow-4"].map((id) => queue.send(message(id)));
    const first = queue.send(message("first"), { priority: 1 });
    // Two in flight (follow-1 and follow-2); release them one by one.
    while (order.length < 5) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all([...sends, first]);
    expect(most).toBe(2);
    expect(order.indexOf("first")).toBeLessThan(order.indexOf("follow-3"));
    expect(order.slice(0, 2)).toEqual(["follow-1", "follow-2"]);
  });
});
