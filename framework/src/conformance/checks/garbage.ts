/** garbage: the provider survives every kind of garbage on stdin and answers the next query. */
import { defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";
import { handshakeFirst, openStdio } from "./shared/own-session.js";

/** Deterministic bytes with no newline: the same junk every run, so a failure reproduces. */
function junkBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length + 1);
  let state = 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const byte = state & 0xff;
    bytes[i] = byte === 0x0a ? 0x0b : byte;
  }
  bytes[length] = 0x0a;
  return bytes;
}

/** Garbage of every kind, each named for the evidence (built on use: one item is a megabyte). */
const garbageItems = (): [string, string | Uint8Array][] => [
  ["random bytes", junkBytes(512)],
  ["a 1 MiB junk line", `{"type":"query","query":{"goal":"${"x".repeat(1024 * 1024)}\n`],
  ["partial JSON", '\n\r\n   \n{"type":"query","query":{"goal":"partial\n'],
  [
    "wrong types",
    '{"type":"query","query":{"goal":42,"kinds":"doc","anchors":{},"max_frames":"ten","max_tokens":-5}}\n',
  ],
  ["an unknown type", '{"type":"subscribe","topics":["*"]}\n'],
  ["a JSON string", '"just a string"\n'],
  ["deeply nested JSON", `${"[".repeat(100_000)}${"]".repeat(100_000)}\n`],
];

/** The garbage check. */
export const garbage = defineCheck({
  name: "garbage",
  appliesTo: ["stdio"],
  elsewhere: "stdio only: over HTTP a malformed body is http-bad-json",
  uses: "own-session",
  hazard: "may-crash",
  run: async (ctx) => {
    const session = openStdio(ctx, "garbage session");
    const failedHandshake = await handshakeFirst(session, ctx);
    if (failedHandshake) return verdict("not-run", failedHandshake);
    const wait = Math.min(ctx.queryTimeoutMs, 2000);
    const items = garbageItems();
    let errors = 0;
    for (const [what, junk] of items) {
      session.send(junk);
      const reply = await session.nextReply(wait);
      if (session.exit !== undefined) return verdict("fail", `after ${what}: ${session.deadReason}`);
      if (reply?.ok && reply.type === "error") errors += 1;
    }
    const goal = ctx.goals[0] ?? "how does it work";
    session.send({ type: "query", query: { goal, kinds: [], anchors: [], max_frames: 4, max_tokens: 2048 } });
    // Late error replies to the garbage may still be queued ahead of the answer.
    for (let i = 0; i <= items.length; i++) {
      const reply = await session.nextReply(ctx.queryTimeoutMs, "query after the garbage");
      if (reply === undefined) {
        const why = session.deadReason ?? `no reply within ${ctx.queryTimeoutMs} ms`;
        return verdict("fail", `after ${items.length} kinds of garbage, a query was not answered: ${why}`);
      }
      if (reply.ok && reply.type === "frames") {
        const count = Array.isArray((reply.envelope.result as { frames?: unknown })?.frames)
          ? (reply.envelope.result as { frames: unknown[] }).frames.length
          : 0;
        return verdict(
          "pass",
          `survived ${items.map(([what]) => what).join(", ")} (${errors} error replies), then answered a query with ${count} frames`,
        );
      }
    }
    return verdict("fail", "after the garbage, the query was answered with an error, not frames");
  },
});
