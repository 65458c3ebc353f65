/**
 * The provider's logger. Everything it writes goes to stderr: stdout carries
 * envelopes only. Every message is one line, whatever it holds: a goal, an id, a path
 * or a header a client chose is written with its control characters escaped
 * ({@link escapeLine}), so it can neither forge a line of the log nor drive a terminal.
 */
import { escapeLine } from "./display-text.js";

/** Where diagnostics go. Levels: error > warn > info > debug. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Log levels, most severe first; `silent` writes nothing. */
export type LogLevel = "silent" | "error" | "warn" | "info" | "debug";

const LEVELS: readonly LogLevel[] = ["silent", "error", "warn", "info", "debug"];

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Prefix of every line, e.g. the provider's name. */
  name: string;
  /** Lowest level written; default from `OCP_LOG`, else `info`. */
  level?: LogLevel;
  /** Where lines go; default `process.stderr`. */
  stream?: { write(text: string): unknown };
}

/** A logger writing `[name] level: message` lines to stderr (or `stream`), one line per message, escaped. */
export function createLogger(options: LoggerOptions): Logger {
  const envLevel = process.env.OCP_LOG as LogLevel | undefined;
  const level = options.level ?? (envLevel !== undefined && LEVELS.includes(envLevel) ? envLevel : "info");
  const threshold = LEVELS.indexOf(level);
  const stream = options.stream ?? process.stderr;
  const line = (at: LogLevel) => (message: string) => {
    if (LEVELS.indexOf(at) <= threshold) stream.write(`${escapeLine(`[${options.name}] ${at}: ${message}`)}\n`);
  };
  return { error: line("error"), warn: line("warn"), info: line("info"), debug: line("debug") };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
