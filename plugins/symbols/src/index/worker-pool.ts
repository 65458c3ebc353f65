/**
 * A small pool of worker threads for big builds on machines with cores to spare:
 * parsing thousands of files is CPU-bound. Each worker loads the parsers it needs
 * once. Jobs are pulled from a source the main thread shares (it parses too, between
 * answering queries), travel in batches, and each worker holds up to two batches, so
 * it never waits on the main thread for its next file. A worker that dies fails only
 * the jobs it held and is replaced, a few times at most.
 *
 * Run from TypeScript sources (tests), a worker cannot load `.ts` on its own, so
 * it is bootstrapped through tsx, which is what runs those sources.
 */

import { Worker } from "node:worker_threads";
import { typedArrayReviver } from "../extract/bag.js";
import type { ExtractJob, ExtractOutcome } from "./read-extract.js";

/** Jobs per message. */
const BATCH = 16;
/** Messages a worker holds at once: enough that it never waits while the main thread is busy. */
const DEPTH = 2;
/** Workers replaced after dying, per pool; past that a dead worker's slot stays empty. */
const MAX_RESTARTS = 3;

interface Pending {
  readonly job: ExtractJob;
  readonly done: (outcome: ExtractOutcome) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Jobs sent and not answered, by id. */
  readonly jobs: Map<number, Pending>;
  /** Batches sent and not answered. */
  batches: number;
  /** The worker has loaded and said so. */
  ready: boolean;
}

function spawn(): Worker {
  const url = new URL(import.meta.url.endsWith(".ts") ? "./extract-worker.ts" : "./extract-worker.js", import.meta.url);
  if (!url.pathname.endsWith(".ts")) return new Worker(url);
  const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/** What a job that could not run at all (its worker died) comes back as. */
function failed(job: ExtractJob, error: Error): ExtractOutcome {
  const problem = `extraction failed: ${error.message}`;
  return {
    kind: "extracted",
    extraction: { status: "parse-error", hash: job.knownHash ?? "", lineCount: 0, symbols: [], problem },
  };
}

/** Worker threads extracting files in parallel, pulling jobs from a shared source. */
export class ExtractionPool {
  private readonly slots: Slot[] = [];
  private source:
    | { next: () => ExtractJob | undefined; done: (job: ExtractJob, outcome: ExtractOutcome) => void }
    | undefined;
  private settle: (() => void) | undefined;
  private exhausted = false;
  private nextId = 0;
  private restarts = 0;
  private closed = false;

  constructor(size: number) {
    for (let i = 0; i < Math.max(1, size); i++) this.slots.push(this.start());
  }

  private start(): Slot {
    const slot: Slot = { worker: spawn(), jobs: new Map(), batches: 0, ready: false };
    slot.worker.on("message", (text: string) => {
      if (text === "ready") {
        slot.ready = true;
        this.dispatch();
        return;
      }
      slot.batches--;
      for (const { id, outcome } of JSON.parse(text, typedArrayReviver) as { id: number; outcome: ExtractOutcome }[]) {
        const pending = slot.jobs.get(id);
        slot.jobs.delete(id);
        pending?.done(outcome);
      }
      this.dispatch();
    });
    const fail = (error: Error) => {
      // A crashed worker fails only the jobs it held; a fresh one takes its place.
      const lost = [...slot.jobs.values()];
      slot.jobs.clear();
      slot.batches = 0;
      for (const pending of lost) pending.done(failed(pending.job, error));
      const index = this.slots.indexOf(slot);
      if (index !== -1 && !this.closed) {
        // A worker that cannot even start would otherwise be respawned forever; the main thread carries on.
        if (this.restarts++ < MAX_RESTARTS) this.slots[index] = this.start();
        else this.slots.splice(index, 1);
      }
      this.dispatch();
    };
    slot.worker.on("error", fail);
    slot.worker.on("exit", (code) => {
      if (!this.closed) fail(new Error(`extraction worker exited with code ${code}`));
    });
    return slot;
  }

  /** Fills every ready worker up to {@link DEPTH} batches from the source; settles the drain when all is done. */
  private dispatch(): void {
    const source = this.source;
    if (source === undefined) return;
    for (const slot of this.slots) {
      while (slot.ready && !this.exhausted && slot.batches < DEPTH) {
        const batch: { id: number; job: ExtractJob }[] = [];
        while (batch.length < BATCH) {
          const job = source.next();
          if (job === undefined) {
            this.exhausted = true;
            break;
          }
          const id = this.nextId++;
          slot.jobs.set(id, { job, done: (outcome) => source.done(job, outcome) });
          batch.push({ id, job });
        }
        if (batch.length === 0) break;
        slot.batches++;
        slot.worker.postMessage(batch);
      }
    }
    if (this.exhausted && this.slots.every((slot) => slot.jobs.size === 0)) {
      this.source = undefined;
      this.settle?.();
    }
  }

  /**
   * Pulls jobs from `next` until it returns undefined, giving each outcome to `done`
   * (a job whose worker died comes back as a parse error). Others may pull from the
   * same source meanwhile. Resolves once every job pulled here is answered, after
   * the source ran dry or {@link finish} was called.
   */
  drain(next: () => ExtractJob | undefined, done: (job: ExtractJob, outcome: ExtractOutcome) => void): Promise<void> {
    if (this.closed || this.source !== undefined) return Promise.reject(new Error("extraction pool is closed or busy"));
    return new Promise((resolve) => {
      this.source = { next, done };
      this.exhausted = false;
      this.settle = resolve;
      this.dispatch();
    });
  }

  /** The source is dry (someone else took the last job): settle as soon as the jobs out are answered. */
  finish(): void {
    this.exhausted = true;
    this.dispatch();
  }

  /** Stops every worker; jobs still out come back failed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new Error("extraction pool closed");
    for (const slot of this.slots) {
      for (const pending of slot.jobs.values()) pending.done(failed(pending.job, error));
      slot.jobs.clear();
    }
    this.source = undefined;
    this.settle?.();
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
