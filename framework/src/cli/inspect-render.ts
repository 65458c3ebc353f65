/**
 * What `ocp inspect` prints for a person: the sample query's frames, the
 * provider's stderr, one line per check (✓ / ✗ / – / ·) with its evidence, and a verdict:
 * CONFORMANT, NOT CONFORMANT, or NOT VERIFIED when no query returned a frame to judge.
 * Frames are read defensively: a misbehaving provider's score may be a string, and
 * whatever it sent (titles, messages, its stderr, evidence quoting them) is shown with
 * its control and bidi characters as � (`terminalText`), never raw to the terminal.
 */
import pc from "picocolors";
import { FRAME_CHECKS } from "../conformance/checks/index.js";
import type { Sample } from "../conformance/sample.js";
import type { ConformanceReport } from "../conformance/types.js";
import { terminalText } from "../provider/display-text.js";

type Colors = ReturnType<typeof pc.createColors>;

const text = (value: unknown, fallback: string) =>
  typeof value === "string" && value.trim() !== "" ? terminalText(value) : fallback;
const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The sample query: each frame's rank, kind, score, cost, running total against the budget, title, citation; then stderr. */
export function renderSample(sample: Sample, color: boolean): string {
  const c = pc.createColors(color);
  const { max_tokens: budget, max_frames: maxFrames } = sample.query;
  const lines = [
    c.bold(`query ${terminalText(JSON.stringify(sample.query.goal))} (max_tokens ${budget}, max_frames ${maxFrames})`),
  ];
  const { reply } = sample;
  const frames =
    reply.ok && reply.type === "frames" ? (reply.envelope.result as { frames?: unknown })?.frames : undefined;
  if (!reply.ok) lines.push(`  ${c.red(`no frames: ${terminalText(reply.reason)}`)}`);
  else if (reply.type === "error") lines.push(`  ${c.red(`error: ${terminalText(String(reply.envelope.message))}`)}`);
  else if (!Array.isArray(frames)) lines.push(`  ${c.red(`unexpected reply '${terminalText(String(reply.type))}'`)}`);
  else renderFrames(frames, budget, c, lines);
  lines.push(c.bold("provider stderr:"));
  const stderr = sample.stderr.trimEnd();
  lines.push(
    stderr === ""
      ? c.dim("  (nothing)")
      : stderr
          .split("\n")
          .map((line) => c.dim(`  | ${terminalText(line)}`))
          .join("\n"),
  );
  return `${lines.join("\n")}\n`;
}

function renderFrames(frames: unknown[], budget: number, c: Colors, lines: string[]): void {
  let total = 0;
  const width = String(budget).length;
  frames.forEach((raw, index) => {
    const frame = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    const cost = number(frame.token_cost);
    total += cost ?? 0;
    const score = number(frame.score);
    const scoreText = score === undefined ? c.red(JSON.stringify(frame.score ?? null)) : score.toFixed(2);
    const over = total > budget;
    const running = `[${String(total).padStart(width)}/${budget}]`;
    lines.push(
      `${c.bold(`${index + 1}.`.padStart(4))} ${c.cyan(text(frame.kind, "?").padEnd(7))} score ${score !== undefined && (score < 0 || score > 1) ? c.red(scoreText) : scoreText}  ` +
        `${String(cost ?? "?").padStart(5)} tok  ${over ? c.red(running) : c.dim(running)}  ${c.bold(text(frame.title, c.red("(no title)")))}`,
    );
    lines.push(`     ${c.dim("cite:")} ${text(frame.citation_label, c.red("(none)"))}`);
  });
  const summary = `${frames.length} frame${frames.length === 1 ? "" : "s"} · ${total} / ${budget} tokens`;
  lines.push(`  ${total > budget ? c.red(`${summary} — over budget`) : summary}`);
}

const MARKS = { pass: "✓", fail: "✗", skip: "–", "not-run": "·" } as const;

/** One line per check, then the verdict line. */
export function renderReport(report: ConformanceReport, color: boolean): string {
  const c = pc.createColors(color);
  const paint = { pass: c.green, fail: c.red, skip: c.dim, "not-run": c.yellow } as const;
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const who = report.provider ? terminalText(`${report.provider.name} ${report.provider.version}`) : "the provider";
  const lines = [c.bold(`ocp inspect · ${report.transport} · ${report.target}`)];
  for (const check of report.checks) {
    const mark = paint[check.status](MARKS[check.status]);
    lines.push(
      ` ${mark} ${check.name.padEnd(width)}  ${check.status === "fail" ? terminalText(check.evidence) : c.dim(terminalText(check.evidence))}`,
    );
  }
  const count = (status: keyof typeof MARKS) => report.checks.filter((check) => check.status === status).length;
  const notRun = count("not-run") > 0 ? `, ${count("not-run")} not run` : "";
  const tally = `${count("pass")} passed, ${count("fail")} failed${notRun}, ${count("skip")} skipped in ${(report.durationMs / 1000).toFixed(1)} s`;
  const failed = report.checks.filter((check) => check.status === "fail").map((check) => check.name);
  const over = `${who} over ${report.transport}`;
  if (report.verdict === "not-conformant") {
    // Failed, or only not run: name whichever there is.
    const what = failed.length > 0 ? `failed ${failed.join(", ")}` : "left checks not run";
    lines.push(c.red(c.bold(`NOT CONFORMANT: ${over} ${what} (${tally})`)));
  } else if (report.verdict === "not-verified") {
    lines.push(
      c.yellow(
        c.bold(
          `NOT VERIFIED: no query returned frames, so ${FRAME_CHECKS.join(", ")} judged nothing (${over}: ${tally})`,
        ),
      ),
      "Give --query a goal the provider can answer, or pass --allow-no-frames if it has no data yet.",
    );
  } else {
    const frames =
      report.framesJudged > 0
        ? `${report.framesJudged} frames judged; costs re-counted with ${report.tokenizer}${negotiation(report)}`
        : "no query returned frames: allowed by --allow-no-frames";
    lines.push(c.green(c.bold(`CONFORMANT: ${over} (${tally}; ${frames})`)));
  }
  return `${lines.join("\n")}\n`;
}

/** What the provider said to the tokenizer request, when the run made one. */
function negotiation(report: ConformanceReport): string {
  if (report.negotiated === undefined) return "";
  return report.negotiated === report.tokenizer
    ? ", the tokenizer the session negotiated"
    : `; the provider chose ${report.negotiated}`;
}
