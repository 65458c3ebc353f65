/**
 * connectStdio(): spawn a provider and talk NDJSON to it, as a host does.
 *
 * Replies are matched to requests by order (stdio has no ids). A line that is not
 * JSON, or JSON that is not a provider envelope, is stdout noise: reported, never
 * taken for a reply, so one stray `console.log` cannot shift every later answer
 * onto the wrong question. A request that times out keeps its place in the queue,
 * so its late reply is discarded rather than handed to the next caller.
 */

import {
  type Channel,
  type ConnectOptions,
  openConnection,
  type ProviderConnection,
  reportToStderr,
} from "../../host/connection.js";
import { ProtocolViolationError, ProviderExitedError, ProviderTimeoutError } from "../../host/errors.js";
import { type ProviderProcess, spawnProviderProcess, stderrGist } from "../../host/process.js";
import { PROVIDER_ENVELOPE_TYPES } from "../../wire/codec.js";

/** Options of {@link connectStdio}. */
export interface StdioConnectOptions extends ConnectOptions {
  /** Working directory of the provider; default the current one. */
  cwd?: string;
  /** Extra environment variables for the provider. */
  env?: NodeJS.ProcessEnv;
  /** How long shutdown() waits for the provider to exit before killing its process group; default 2 000 ms. */
  shutdownGraceMs?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** Timed out: its reply, if it ever comes, is dropped. */
  abandoned: boolean;
}

const NOISE_REPORTS = 3;
const providerTypes: readonly string[] = PROVIDER_ENVELOPE_TYPES;

/** Reads a provider's stdout line as a reply candidate: the envelope-shaped JSON object, or undefined for noise. */
function asReply(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === "string" && providerTypes.includes(type) ? value : undefined;
}

/** A stdio channel over a spawned process. */
export function stdioChannel(
  child: ProviderProcess,
  options: { graceMs: number; report: (m: string) => void },
): Channel {
  const pending: Pending[] = [];
  let noise = 0;
  let gone = false;

  const describeExit = () => {
    const exit = child.exit;
    const how = child.spawnError
      ? `could not be started (${child.spawnError.message})`
      : `exited (code ${exit?.code ?? "none"}${exit?.signal ? `, signal ${exit.signal}` : ""})`;
    return `provider '${child.commandLine}' ${how}; stderr: ${stderrGist(child.stderr())}`;
  };

  child.onOutput((event) => {
    if (event.type === "overflow") {
      const head = pending.shift();
      head?.reject(new ProtocolViolationError(`the provider wrote a line over ${event.limit} bytes`));
      return;
    }
    const reply = asReply(event.text);
    if (reply === undefined) {
      noise += 1;
      if (noise <= NOISE_REPORTS) {
        options.report(
          `'${child.commandLine}' wrote a line to stdout that is not an envelope (ignored; stdout is for envelopes only): ` +
            JSON.stringify(event.text.slice(0, 120)),
        );
      }
      if (noise === NOISE_REPORTS + 1)
        options.report(`further stdout noise from '${child.commandLine}' is not reported`);
      return;
    }
    const head = pending.shift();
    if (head === undefined) {
      options.report(`'${child.commandLine}' sent a reply nobody asked for (ignored)`);
    } else if (!head.abandoned) head.resolve(reply);
  });

  void child.exited.then(() => {
    gone = true;
    const error = new ProviderExitedError(describeExit());
    for (const entry of pending.splice(0)) if (!entry.abandoned) entry.reject(error);
  });

  return {
    get gone() {
      return gone;
    },
    stderr: () => child.stderr(),
    request(line, what, timeoutMs) {
      if (gone) return Promise.reject(new ProviderExitedError(describeExit()));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          entry.abandoned = true;
          reject(new ProviderTimeoutError(what, timeoutMs));
        }, timeoutMs);
        const entry: Pending = {
          abandoned: false,
          resolve: (value) => {
            clearTimeout(timer);
            resolve({ value });
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        pending.push(entry);
        child.write(`${line}\n`);
      });
    },
    async close() {
      if (!gone) {
        child.write(`${JSON.stringify({ type: "shutdown" })}\n`);
        child.closeInput();
      }
      await child.stop(options.graceMs);
      gone = true;
    },
  };
}

/**
 * Spawns `command args` as a stdio provider (in its own process group) and
 * performs the handshake. Rejects with a `VersionMismatchError` when the provider
 * acks in another major family, a `ProviderTimeoutError` after the handshake
 * timeout, or a `ProviderExitedError`; in every failure the process is stopped.
 */
export function connectStdio(
  command: string,
  args: readonly string[] = [],
  options: StdioConnectOptions = {},
): Promise<ProviderConnection> {
  const child = spawnProviderProcess(command, args, { cwd: options.cwd, env: options.env });
  const channel = stdioChannel(child, {
    graceMs: options.shutdownGraceMs ?? 2000,
    report: options.report ?? reportToStderr,
  });
  return openConnection(channel, { transport: "stdio", target: child.commandLine }, options);
}
