/**
 * Build progress on stderr (never stdout, which carries envelopes): a cli-progress
 * bar on a terminal; without one, a plain line at most once a second and one at the end.
 */
import cliProgress from "cli-progress";

/** A progress display for one build. */
export interface Progress {
  update(done: number, symbols: number): void;
  stop(): void;
}

const QUIET: Progress = { update() {}, stop() {} };

/** Writes `[symbols] indexing: 1200/3155 files, 31000 symbols` lines, throttled. */
function plainLines(total: number, stream: NodeJS.WritableStream, intervalMs: number): Progress {
  let last = 0;
  let state = { done: 0, symbols: 0 };
  const write = () => stream.write(`[symbols] indexing: ${state.done}/${total} files, ${state.symbols} symbols\n`);
  return {
    update(done, symbols) {
      state = { done, symbols };
      const now = Date.now();
      if (now - last >= intervalMs) {
        last = now;
        write();
      }
    },
    stop: () => {
      if (last !== 0) write();
    },
  };
}

/** A progress display for `total` files; a silent one when `enabled` is false. */
export function createProgress(enabled: boolean, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || total === 0) return QUIET;
  if (stream.isTTY !== true) return plainLines(total, stream, 1000);
  const bar = new cliProgress.SingleBar({
    stream,
    // The transports own SIGINT/SIGTERM; the bar must not register handlers of its own.
    gracefulExit: false,
    clearOnComplete: true,
    format: "[symbols] indexing {bar} {value}/{total} files | {symbols} symbols | {eta_formatted} left",
  });
  bar.start(total, 0, { symbols: 0 });
  return {
    update: (done, symbols) => bar.update(done, { symbols }),
    stop: () => bar.stop(),
  };
}
