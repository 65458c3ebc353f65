/**
 * Where the stdio benchmark's processes run. A sequential round trip is two wake-ups
 * of two processes, and where the kernel happens to put them moves its time by 2–3×:
 * on a shared 2-core machine, unpinned runs of the same code measured anywhere from
 * 0.45× to 1.9× of the baseline. Pinning the host to one CPU and the servers to another
 * (or to the same one) makes each placement a stable measurement, taken the same way
 * for the baseline and for the framework. Uses `taskset` (util-linux); without it,
 * or with a single CPU, the benchmark runs unpinned and says so.
 */
import { spawnSync } from "node:child_process";

/** Where the host (this process) and the servers it spawns run. */
export interface Placement {
  /** Shown in the table: "apart" or "together". */
  readonly name: "apart" | "together";
  readonly hostCpu: number;
  readonly serverCpu: number;
}

/** Runs `taskset` with `args`; its stdout, or undefined if it is missing or failed. */
function taskset(args: readonly string[]): string | undefined {
  const result = spawnSync("taskset", args, { encoding: "utf8" });
  return result.status === 0 ? result.stdout : undefined;
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(",")) {
    const [first, last = first] = part.split("-").map(Number);
    if (first === undefined || last === undefined || !Number.isInteger(first) || !Number.isInteger(last)) continue;
    for (let cpu = first; cpu <= last; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** The CPUs this process may run on, as taskset lists them ("0-1"); undefined without taskset. */
export function currentAffinity(): string | undefined {
  // "pid 42's current affinity list: 0-1"
  return taskset(["-c", "-p", String(process.pid)])
    ?.split(":")
    .at(-1)
    ?.trim();
}

/**
 * The two placements to measure — host and servers on different CPUs ("apart", how a
 * host and a provider run on any multi-core machine) and on the same one ("together",
 * a saturated machine) — or none when pinning is unavailable.
 */
export function placements(affinity: string | undefined): Placement[] {
  const cpus = affinity === undefined ? [] : parseCpuList(affinity);
  const [first, second] = cpus;
  if (first === undefined || second === undefined) return [];
  return [
    { name: "apart", hostCpu: first, serverCpu: second },
    { name: "together", hostCpu: first, serverCpu: first },
  ];
}

/** Pins every thread of this process to `cpus` (a taskset list); false if that failed. */
export function pinSelf(cpus: string): boolean {
  return taskset(["-a", "-c", "-p", cpus, String(process.pid)]) !== undefined;
}

/** The command and arguments that run `node <args>` on `cpu` (or anywhere, without one). */
export function nodeCommand(args: readonly string[], cpu?: number): [command: string, args: string[]] {
  return cpu === undefined
    ? [process.execPath, [...args]]
    : ["taskset", ["-c", String(cpu), process.execPath, ...args]];
}
