/**
 * The search slots on their own, with real timers: the concurrency bound, arrival
 * order, the queue bound and the wait bound, and a property over random interleavings.
 */
import fc from "fast-check";
import { ERROR_CODES } from "ocp-provider";
import { describe, expect, it } from "vitest";
import { BusyError, type ReleaseSlot, SearchSlots } from "./search-slots.js";

const slots = (concurrency: number, maxQueued: number, maxWaitMs = 60_000) =>
  new SearchSlots({ concurrency, maxQueued, maxWaitMs, label: "plugin 'test'" });

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** An acquire whose outcome is recorded as it happens, in `log`. */
function track(on: SearchSlots, log: string[], name: string, signal?: AbortSignal) {
  const outcome: { release?: ReleaseSlot; error?: unknown } = {};
  on.acquire(signal).then(
    (release) => {
      outcome.release = release;
      log.push(`${name} granted`);
    },
    (error: unknown) => {
      outcome.error = error;
      log.push(`${name} ${error instanceof BusyError ? "busy" : "aborted"}`);
    },
  );
  return outcome;
}

describe("SearchSlots", () => {
  it("runs at most `concurrency` at once and grants the rest in arrival order", async () => {
    const on = slots(2, 10);
    const log: string[] = [];
    const taken = ["a", "b", "c", "d", "e"].map((name) => track(on, log, name));
    await settle();
    expect(log).toEqual(["a granted", "b granted"]);
    expect([on.running, on.waiting]).toEqual([2, 3]);
    taken[1]?.release?.();
    taken[1]?.release?.(); // a second release gives nothing back twice
    await settle();
    expect(log).toEqual(["a granted", "b granted", "c granted"]);
    expect([on.running, on.waiting]).toEqual([2, 2]);
    taken[0]?.release?.();
    taken[2]?.release?.();
    await settle();
    expect(log.slice(3)).toEqual(["d granted", "e granted"]);
    expect([on.running, on.waiting]).toEqual([2, 0]);
  });

  it("refuses at once with OCP_ERR_BUSY when the queue is full", async () => {
    const on = slots(1, 2);
    const log: string[] = [];
    const taken = ["a", "b", "c", "d"].map((name) => track(on, log, name));
    await settle();
    expect(log).toEqual(["a granted", "d busy"]);
    const error = taken[3]?.error as BusyError;
    expect(error.code).toBe(ERROR_CODES.BUSY);
    expect(error.message).toMatch(/^OCP_ERR_BUSY: plugin 'test' is busy: 1 searches running and 2 waiting/);
    // With no queue at all, a query is refused as soon as every slot is taken.
    const none = slots(1, 0);
    track(none, log, "x");
    track(none, log, "y");
    await settle();
    expect(log.slice(2)).toEqual(["x granted", "y busy"]);
  });

  it("refuses a query that waited its bound, without ever granting it", async () => {
    const on = slots(1, 10, 150);
    const log: string[] = [];
    const started = performance.now();
    const [first, late] = ["a", "b"].map((name) => track(on, log, name));
    await new Promise((resolve) => {
      const poll = () => (log.length === 2 ? resolve(undefined) : setTimeout(poll, 10));
      poll();
    });
    expect(log).toEqual(["a granted", "b busy"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(String(late?.error)).toMatch(/no search slot came free within \d+ ms/);
    expect(on.waiting).toBe(0);
    first?.release?.();
    expect(on.running).toBe(0);
  });

  it("refuses a query whose bound passed while the event loop was blocked, when a slot frees", async () => {
    const on = slots(1, 10, 50);
    const log: string[] = [];
    const [first] = ["a", "b", "c"].map((name) => track(on, log, name));
    await settle();
    const until = performance.now() + 80;
    while (performance.now() < until) {
      // blocked: the wait timer cannot fire
    }
    first?.release?.(); // the timer has not run yet: the release itself must see b and c are out of time
    await settle();
    expect(log).toEqual(["a granted", "b busy", "c busy"]);
    expect([on.running, on.waiting]).toEqual([0, 0]);
  });

  it("drops a waiter whose signal aborts, with the signal's reason", async () => {
    const on = slots(1, 1);
    const log: string[] = [];
    const controller = new AbortController();
    const [first, waiting] = [track(on, log, "a"), track(on, log, "b", controller.signal)];
    controller.abort(new Error("host went away"));
    await settle();
    expect(log).toEqual(["a granted", "b aborted"]);
    expect((waiting.error as Error).message).toBe("host went away");
    expect(on.waiting).toBe(0);
    // The aborted waiter no longer holds a place: the queue takes another.
    track(on, log, "c");
    first.release?.();
    await settle();
    expect(log.slice(2)).toEqual(["c granted"]);
    await expect(on.acquire(AbortSignal.abort(new Error("already gone")))).rejects.toThrow("already gone");
  });

  it("reads a signal getter only for a query that has to wait", async () => {
    const on = slots(1, 1);
    let reads = 0;
    const signal = () => {
      reads++;
      return new AbortController().signal;
    };
    const first = await on.acquire(signal); // granted at once
    const waiting = on.acquire(signal); // waits
    await expect(on.acquire(signal)).rejects.toBeInstanceOf(BusyError); // refused at once
    expect(reads).toBe(1);
    first();
    (await waiting)();
    // A refusal carries no stack: it is not a bug, and capturing one cost more than the rest of the refusal.
    const full = slots(1, 0);
    await full.acquire();
    const refused = (await full.acquire().catch((error: Error) => error)) as BusyError;
    expect(refused).toBeInstanceOf(BusyError);
    expect(refused.stack?.split("\n")).toEqual([`BusyError: ${refused.message}`]);
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
  });

  it("keeps every bound under any interleaving of acquires, releases and aborts", async () => {
    // Acquires weigh most, so queues fill and releases find waiters to grant.
    const op = fc.oneof(
      { arbitrary: fc.record({ type: fc.constant("acquire" as const), abortable: fc.boolean() }), weight: 3 },
      { arbitrary: fc.record({ type: fc.constant("release" as const), pick: fc.nat() }), weight: 2 },
      { arbitrary: fc.record({ type: fc.constant("abort" as const), pick: fc.nat() }), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(op),
        async (c, q, ops) => {
          const on = slots(c, q);
          const granted: number[] = [];
          const held: ReleaseSlot[] = [];
          const controllers: AbortController[] = [];
          const refused: number[] = [];
          let next = 0;
          for (const step of ops) {
            if (step.type === "acquire") {
              const id = next++;
              const waitingBefore = on.waiting;
              const full = on.running === c && waitingBefore === q;
              const controller = step.abortable ? new AbortController() : undefined;
              if (controller !== undefined) controllers.push(controller);
              on.acquire(controller?.signal).then(
                (release) => {
                  granted.push(id);
                  held.push(release);
                },
                (error: unknown) => {
                  if (error instanceof BusyError) refused.push(id);
                },
              );
              await settle();
              // Refused exactly when every slot was taken and the queue was full.
              expect(refused.includes(id)).toBe(full);
            } else if (step.type === "release" && held.length > 0) {
              held.splice(step.pick % held.length, 1)[0]?.();
            } else if (step.type === "abort" && controllers.length > 0) {
              controllers[step.pick % controllers.length]?.abort(new Error("gone"));
            }
            await settle();
            expect(on.running).toBeLessThanOrEqual(c);
            expect(on.running).toBe(held.length);
            expect(on.waiting).toBeLessThanOrEqual(q);
            // A free slot is never left idle while someone waits.
            if (on.waiting > 0) expect(on.running).toBe(c);
            // Grants come in arrival order.
            expect(granted).toEqual([...granted].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
