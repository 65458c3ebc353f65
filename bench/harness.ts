/**
 * What every benchmark module shares: the report it returns to `run.ts`, ratio
 * verdicts, a thin tinybench wrapper and a seeded random source.
 *
 * Speed is only ever judged as a ratio against a baseline measured in the same
 * run, so a slow or busy machine moves both sides and the verdict stays meaningful.
 */
import { Bench } from "tinybench";

/** One line of a benchmark's table; the first row's keys are the columns. */
export type BenchRow = Record<string, string | number>;

/** One promise checked by a benchmark. */
export interface Verdict {
  /** "target": a speed goal, reported. "check": a correctness assertion; a failed one fails the run. */
  readonly kind: "target" | "check";
  /** What was promised, in words a reader of the table understands. */
  readonly goal: string;
  /** Whether the measurement keeps the promise. */
  readonly met: boolean;
  /** The evidence: the ratio and the numbers behind it. */
  readonly detail: string;
}

/** What a `*.bench.ts` module's `run()` resolves to. */
export interface BenchReport {
  /** A heading for the table. */
  readonly title: string;
  /** The measured cases. */
  readonly rows: readonly BenchRow[];
  /** Targets and checks, one line each. */
  readonly verdicts: readonly Verdict[];
  /** Anything a reader needs to interpret the rows (what a column means, what was skipped). */
  readonly notes?: readonly string[];
}

/** The contract of a `bench/*.bench.ts` module: `run.ts` imports it and awaits `run()` (one table, or several). */
export interface BenchModule {
  run(): Promise<BenchReport | readonly BenchReport[]>;
}

/**
 * A speed verdict: `ratio` must reach `threshold` (e.g. 20 for "20× faster", 0.85 for
 * "85% of"). `rme` is the worst margin of error (%) of the timings behind the ratio:
 * when the ratio sits closer to the threshold than that noise, the verdict says it
 * could flip on a re-run instead of passing or failing with false confidence.
 */
export function ratioVerdict(goal: string, ratio: number, threshold: number, detail: string, rme?: number): Verdict {
  // A ratio of two means carries roughly both their errors.
  const couldFlip = rme !== undefined && Math.abs(ratio / threshold - 1) * 100 < 2 * rme;
  const noisy = couldFlip ? `; within the noise (±${rme.toFixed(0)}%): re-run on a quiet machine` : "";
  return {
    kind: "target",
    goal,
    met: ratio >= threshold,
    detail: `${formatRatio(ratio)} (need ${threshold}×); ${detail}${noisy}`,
  };
}

/** A correctness verdict; a failed one makes `npm run bench` exit non-zero. */
export function checkVerdict(goal: string, met: boolean, detail: string): Verdict {
  return { kind: "check", goal, met, detail };
}

/** `31.4×`, `0.97×`: two significant decimals below 10, one above. */
export function formatRatio(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/** A duration in ms with a unit a reader takes in at a glance. */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(ms >= 100 ? 0 : 2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

/** A rate with thousands separators, e.g. `152,340/s`. */
export function formatRate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString("en-US")}/s`;
}

/** One timed task for {@link measure}. */
export interface TimedTask {
  /** Unique within one `measure` call. */
  readonly name: string;
  /**
   * One iteration; its result is kept so the work cannot be optimised away. A task that
   * returns a promise is awaited: its time is until the promise settles.
   */
  readonly fn: () => unknown;
}

/** How long {@link measure} spends per task; tinybench runs until both minimums are met. */
export interface MeasureOptions {
  /** Minimum measured time per task, in ms, over all rounds. */
  readonly time: number;
  /** Minimum measured iterations per task, over all rounds. */
  readonly iterations: number;
  /** Untimed iterations per round, so the JIT and the tokenizer tables are warm. Default 2. */
  readonly warmupIterations?: number;
  /**
   * Rounds, in alternating task order (forward, backward, ...). Default 2: whichever
   * task runs first or last in a round, drift on a shared machine and garbage left by
   * the previous task then fall on every side alike.
   */
  readonly rounds?: number;
}

/** The timing of one task. */
export interface Measured {
  /** Mean time of one iteration, in ms. */
  readonly meanMs: number;
  /** Relative margin of error of the mean, in percent (95%); the worst round's. */
  readonly rme: number;
  /** Timed iterations. */
  readonly samples: number;
}

/** Anything a task returns lands here, so V8 cannot prove the work unused. */
export let sink: unknown;

/** Times `tasks` in one process and returns each task's mean over all rounds. */
export async function measure(tasks: readonly TimedTask[], options: MeasureOptions): Promise<Map<string, Measured>> {
  const rounds = options.rounds ?? 2;
  const warmupIterations = options.warmupIterations ?? 2;
  const totals = new Map<string, { ms: number; samples: number; rme: number }>();
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({
      time: options.time / rounds,
      iterations: Math.max(1, Math.ceil(options.iterations / rounds)),
      warmup: warmupIterations > 0,
      warmupIterations,
      // Warm-up is bounded by iterations, not time: a 1 s baseline iteration needs no 250 ms budget.
      warmupTime: 0,
      throws: true,
    });
    for (const task of round % 2 === 0 ? tasks : [...tasks].reverse()) {
      // Synchronous tasks stay synchronous (an async wrapper would add a microtask to
      // every iteration); a task that returns a promise is timed until it settles.
      const probe = task.fn();
      if (probe instanceof Promise) {
        await probe;
        bench.add(task.name, async () => {
          sink = await task.fn();
        });
      } else {
        bench.add(task.name, () => {
          sink = task.fn();
        });
      }
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed")
        throw new Error(`benchmark task '${task.name}' did not complete (${result.state})`);
      const total = totals.get(task.name) ?? { ms: 0, samples: 0, rme: 0 };
      total.ms += result.latency.mean * result.latency.samplesCount;
      total.samples += result.latency.samplesCount;
      total.rme = Math.max(total.rme, result.latency.rme);
      totals.set(task.name, total);
    }
  }
  const results = new Map<string, Measured>();
  for (const [name, total] of totals) {
    results.set(name, { meanMs: total.ms / total.samples, rme: total.rme, samples: total.samples });
  }
  return results;
}

/** The timing of `name` from a {@link measure} result; throws if it is missing (a typo in a task name). */
export function timing(results: Map<string, Measured>, name: string): Measured {
  const found = results.get(name);
  if (found === undefined) throw new Error(`no timing for '${name}'`);
  return found;
}

/**
 * A deterministic random source (mulberry32): the same seed gives the same corpus
 * on every machine, so runs and machines compare like with like.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Renders rows as a Markdown table, for the terminal and for a commit message as is. */
export function markdownTable(rows: readonly BenchRow[]): string {
  const first = rows[0];
  if (first === undefined) return "(no rows)";
  const columns = Object.keys(first);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? "")));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((line) => (line[i] as string).length)),
  );
  const line = (values: readonly string[]) =>
    `| ${values.map((value, i) => value.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(columns), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)].join("\n");
}

/** One verdict as one line: `met      goal: detail` or `NOT met  goal: detail`. */
export function verdictLine(verdict: Verdict): string {
  const label = verdict.met ? "met    " : "NOT met";
  return `${label}  [${verdict.kind}] ${verdict.goal}: ${verdict.detail}`;
}
