/**
 * `ocp inspect` on a terminal, while the checks run: one status line on stderr,
 * rewritten every second, naming the checks still waiting and for how long — so a
 * provider that hangs shows which checks it holds up instead of 30 silent seconds.
 * Only on a TTY (a pipe or a CI log gets the report alone), and erased at the end.
 */
import { checksFor } from "../conformance/checks/index.js";
import type { CheckName, CheckResult, TargetTransport } from "../conformance/types.js";

/** The progress line's controls. */
export interface InspectProgress {
  /** Pass as `onCheck`: marks a check done. */
  readonly done: (check: CheckResult) => void;
  /** Erases the line and stops updating it. */
  readonly stop: () => void;
}

/** At most this many waiting checks are named; the rest are counted. */
const NAMED = 2;

/** Starts the status line on `stream` (a TTY), for the checks of `transport`. */
export function startProgress(
  stream: NodeJS.WriteStream,
  transport: TargetTransport,
  intervalMs = 1000,
): InspectProgress {
  const started = performance.now();
  // The checks of other transports are reported as skipped at once; nothing waits on them.
  const waiting = new Set<CheckName>(checksFor(transport).map((check) => check.name));
  const total = waiting.size;
  let last = performance.now();
  const draw = () => {
    const seconds = Math.round((performance.now() - started) / 1000);
    const idle = Math.round((performance.now() - last) / 1000);
    const names = [...waiting];
    const shown = names.slice(0, NAMED).join(", ") + (names.length > NAMED ? ` (+${names.length - NAMED} more)` : "");
    const line = `checks ${total - waiting.size}/${total} done, ${seconds} s${
      names.length > 0 && idle >= 1 ? ` · waiting ${idle} s on ${shown}` : ""
    }`;
    // Cut to the terminal's width so the line never wraps (a wrapped line cannot be rewritten).
    const width = Math.max(20, (stream.columns || 80) - 1);
    stream.write(`\r\u001b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  timer.unref();
  return {
    done: (check) => {
      if (waiting.delete(check.name)) last = performance.now();
    },
    stop: () => {
      clearInterval(timer);
      stream.write("\r\u001b[2K");
    },
  };
}
