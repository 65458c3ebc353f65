/**
 * A provider that misbehaves on purpose, to prove every conformance check can
 * fail. It speaks the raw wire — no defineProvider, no strict writer — so it can
 * lie in ways the framework would never let a provider lie.
 *
 *   node dist/conformance/misbehaving-provider.js --misbehave lying-costs
 *   node dist/conformance/misbehaving-provider.js --misbehave bad-json-500 --http 127.0.0.1:0
 *
 * Over HTTP it prints `listening on http://…` to stderr. `--tokenizer` picks what
 * its honest costs are counted with (default o200k_base). For testing hosts:
 * `--egress` declares `data_flow.egress: true`, `--record FILE` appends every line
 * it receives to FILE, and `--orphan` starts a grandchild that ignores SIGTERM and
 * would outlive it (its pid goes to stderr as `grandchild pid N`).
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import type { TokenizerName } from "../tokens/counter.js";
import { LineSplitter } from "../transports/stdio/ndjson.js";
import { type Action, createMisbehaver, MISBEHAVE_MODES, type MisbehaveMode } from "./misbehaving-answers.js";

const BODY_LIMIT = 1024 * 1024;

function usage(message: string): never {
  process.stderr.write(`misbehaving-provider: ${message}\nmodes: ${MISBEHAVE_MODES.join(", ")}\n`);
  process.exit(2);
}

function crash(why: string): never {
  // An uncaught error: the exit code and stack trace a real crash leaves.
  throw new Error(`misbehaving provider ${why}`);
}

interface Flags {
  tokenizer: TokenizerName | undefined;
  egress: boolean;
  record: string | undefined;
}

function serveStdio(mode: MisbehaveMode, flags: Flags): void {
  const misbehaver = createMisbehaver(mode, { tokenizer: flags.tokenizer, egress: flags.egress });
  const splitter = new LineSplitter(BODY_LIMIT);
  const noise = (text: string) => {
    if (mode === "stdout-noise") process.stdout.write(`${text}\n`);
  };
  const act = (action: Action) => {
    switch (action.do) {
      case "reply":
        noise(`debug: replying ${String(action.envelope.type)}`);
        process.stdout.write(`${JSON.stringify(action.envelope)}\n`);
        return;
      case "crash":
        crash(action.why);
        return;
      case "exit":
        process.exit(action.code);
        return;
      default:
        return; // nothing, or hang: the host waits in vain
    }
  };
  noise("misbehaving provider starting (this line is not an envelope)");
  process.stdin.on("data", (chunk: Buffer) => {
    const events = splitter.push(chunk);
    // Lines that arrive together are answered last-first: pipelined replies come back reversed.
    if (mode === "out-of-order") events.reverse();
    for (const event of events) {
      if (flags.record !== undefined)
        appendFileSync(flags.record, `${event.type === "line" ? event.text : "(overflow)"}\n`);
      if (event.type === "overflow") act(misbehaver.handle("\u0000line too long"));
      else act(misbehaver.handle(event.text));
    }
  });
  process.stdin.on("end", () => {
    if (mode === "no-exit-on-eof") setInterval(() => {}, 60_000);
    else process.exit(misbehaver.exitCode());
  });
}

function serveHttp(mode: MisbehaveMode, flags: Flags, listen: string): void {
  const misbehaver = createMisbehaver(mode, { tokenizer: flags.tokenizer, egress: flags.egress, stateless: true });
  const match = /^(?:(.+):)?(\d+)$/.exec(listen) ?? usage(`--http expects [host:]port, not '${listen}'`);
  const server = createServer((request, response) => {
    const send = (status: number, envelope?: Record<string, unknown>) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(envelope === undefined ? undefined : `${JSON.stringify(envelope)}\n`);
    };
    const declared = Number(request.headers["content-length"] ?? 0);
    if (mode !== "no-body-limit" && declared > BODY_LIMIT) {
      send(413, { type: "error", message: `request body too large: over ${BODY_LIMIT} bytes` });
      request.resume(); // read and discard the rest, so the client sees the answer rather than a reset
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (flags.record !== undefined) appendFileSync(flags.record, `${text.replaceAll("\n", " ")}\n`);
      if (mode === "bad-json-500" && !isJson(text)) {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end("Internal Server Error");
        return;
      }
      const action = misbehaver.handle(text);
      switch (action.do) {
        case "reply":
          send(action.envelope.type === "error" ? 400 : 200, action.envelope);
          return;
        case "crash":
          crash(action.why);
          return;
        case "exit":
          send(204);
          return;
        case "nothing":
          send(500, { type: "error", message: "shutdown is not supported" });
          return;
        default:
          return; // hang: never answer
      }
    });
  });
  server.listen(Number(match[2]), match[1] ?? "127.0.0.1", () => {
    const { address, port } = server.address() as AddressInfo;
    process.stderr.write(`misbehaving (${mode}) listening on http://${address}:${port}/\n`);
  });
  process.once("SIGTERM", () => process.exit(0));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A process in our group that shrugs off SIGTERM: only a group SIGKILL ends it. */
function startOrphan(): void {
  const orphan = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 60_000);"], {
    stdio: "ignore",
  });
  process.stderr.write(`grandchild pid ${orphan.pid}\n`);
}

const { values } = parseArgs({
  options: {
    misbehave: { type: "string", default: "clean" },
    http: { type: "string" },
    tokenizer: { type: "string" },
    egress: { type: "boolean", default: false },
    record: { type: "string" },
    orphan: { type: "boolean", default: false },
  },
});
const mode = values.misbehave as MisbehaveMode;
if (!MISBEHAVE_MODES.includes(mode)) usage(`unknown mode '${values.misbehave}'`);
const flags: Flags = {
  tokenizer: values.tokenizer as TokenizerName | undefined,
  egress: values.egress,
  record: values.record,
};
if (values.orphan) startOrphan();
if (values.http !== undefined) serveHttp(mode, flags, values.http);
else serveStdio(mode, flags);
