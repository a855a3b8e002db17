import { afterAll, describe, expect, it } from "vitest";
import { closeRenderPool } from "../src/messaging/render/pool.ts";
import { renderFields, templateProblem } from "../src/messaging/render/render.ts";

// The render pool is shared by every shop: a shop with a long batch of sends waiting must not hold
// another shop's sends, nor anyone's template edit, behind all of it.

afterAll(async () => {
  await closeRenderPool();
});

const FIELDS = [{ kind: "text" as const, source: "{% for i in (1..200) %}{{ customer.name | upcase }}{% endfor %}" }];
const people = (n: number, name: string) => Array.from({ length: n }, () => ({ customer: { name } }));

describe("the render pool's queue", () => {
  it("serves another shop's send and a template edit before a busy shop's whole batch", async () => {
    const finished: string[] = [];
    // Shop A: 1,000 recipients, 20 jobs of 50.
    const busy = renderFields(FIELDS, people(1000, "a"), { owner: "shop-a" }).then(() => finished.push("shop A's batch"));
    const other = renderFields(FIELDS, people(1, "b"), { owner: "shop-b" }).then((rows) => {
      finished.push("shop B's send");
      return rows;
    });
    const edit = templateProblem("email.body", FIELDS[0]?.source ?? "", "text", { customer: { name: "c" } }).then((issue) => {
      finished.push("a template edit");
      return issue;
    });
    const [, rows, issue] = await Promise.all([busy, other, edit]);
    expect(rows[0]?.[0]).toBe("B".repeat(200));
    expect(issue).toBeUndefined();
    expect(finished.at(-1)).toBe("shop A's batch");
  });
});
