import { afterEach, describe, expect, it, vi } from "vitest";
import { gate } from "../bench/rounds.ts";

// bench:latency promises its p99 in every round: one round over the target fails the gate even
// when the median is under it (the median let a 1.8 s round through).

const exitCode = process.exitCode;
afterEach(() => {
  process.exitCode = exitCode;
  vi.restoreAllMocks();
});

function printed(run: () => boolean): { met: boolean; line: string } {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const met = run();
  vi.restoreAllMocks();
  return { met, line: lines.join("") };
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

describe("the rounds' gate", () => {
  it("over every round: one round at or over the target misses it, and the worst round is printed", () => {
    const { met, line } = printed(() => gate({ name: "p99", values: [620, 1836, 700, 640, 590], target: 1000, bound: "below", over: "every", format: ms }));
    expect(met).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(line).toBe("p99: worst 1836 ms (round 2; median 640 ms, best 590 ms) over 5 rounds; target < 1000 ms in every round: NOT met (rounds missing it: 2)\n");
  });

  it("over every round: met when each is under it", () => {
    process.exitCode = undefined;
    const { met, line } = printed(() => gate({ name: "p99", values: [620, 999, 700], target: 1000, bound: "below", over: "every", format: ms }));
    expect(met).toBe(true);
    expect(process.exitCode).toBeUndefined();
    expect(line).toBe("p99: worst 999 ms (round 2; median 700 ms, best 620 ms) over 3 rounds; target < 1000 ms in every round: met\n");
  });

  it("on the median by default, as before", () => {
    const { met } = printed(() => gate({ name: "p99", values: [620, 1836, 700, 640, 590], target: 1000, bound: "below", format: ms }));
    expect(met).toBe(true);
  });
});
