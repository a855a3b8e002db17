import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "./helpers/app.ts";
import { useTestEnv } from "./helpers/fixture.ts";
import { createOffer } from "./helpers/offers.ts";

/**
 * A paging cursor is client input: decoded from base64url, its content never passed the
 * dispatcher's text check. Values PostgreSQL refuses (a NUL, an int8 out of range, a year 0
 * timestamp) answer 422 on every list, never 500.
 */
const env = useTestEnv({ shop: "Cursor shop" });
let offerId: string;

beforeAll(async () => {
  offerId = (await createOffer(env.app, env.key)).id;
});

const cursor = (values: unknown[]): string => Buffer.from(JSON.stringify(values)).toString("base64url");
const UUID = "00000000-0000-4000-8000-000000000000";

const lists = (): [string, unknown[][]][] => [
  [`/preorders/offers/${offerId}/variants`, [["1", "\u0000"], ["9999999999999999999", "x"]]],
  ["/back_in_stock/notifications", [["0000-01-01T00:00:00Z", "1"], ["2026-01-01T00:00:00Z", "9999999999999999999"]]],
  ["/back_in_stock/signups", [["0000-01-01T00:00:00Z", UUID]]],
  ["/preorders/orders", [["0000-01-01T00:00:00Z", UUID]]],
  ["/preorders/offers", [["0000-01-01T00:00:00Z", UUID]]],
];

describe("paging cursors PostgreSQL cannot take", () => {
  it("answer 422 'cursor must be the next_cursor of a previous page' on every list", async () => {
    for (const [path, cursors] of lists()) {
      for (const values of cursors) {
        const answer = await invoke(env.app, "GET", `${path}?cursor=${cursor(values)}`, { key: env.key });
        expect({ path, values, status: answer.status, body: answer.body }).toEqual({
          path,
          values,
          status: 422,
          body: { errors: ["cursor must be the next_cursor of a previous page"] },
        });
      }
    }
  });

  it("still take a cursor the list gave", async () => {
    const answer = await invoke(env.app, "GET", `/preorders/offers?cursor=${cursor(["2026-01-01T00:00:00.000Z", UUID])}`, { key: env.key });
    expect(answer.status).toBe(200);
  });
});
