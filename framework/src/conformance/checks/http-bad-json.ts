/** http-bad-json: a malformed JSON body gets a 4xx with an `error` envelope. */
import { clip } from "../../host/clip.js";
import { defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";
import { openHttp } from "./shared/own-session.js";

/** The http-bad-json check; last of its run, so a provider that dies of bad JSON takes no other check down. */
export const httpBadJson = defineCheck({
  name: "http-bad-json",
  appliesTo: ["http"],
  elsewhere: "HTTP only",
  uses: "own-session",
  hazard: "may-crash",
  run: async (ctx) => {
    const session = openHttp(ctx, "bad-JSON request");
    const reply = await session.post('{"type":"query","query":{"goal":', "bad JSON", ctx.queryTimeoutMs);
    const status = reply.status;
    if (status === undefined)
      return verdict("fail", `no response to a malformed JSON body: ${(reply as { reason: string }).reason}`);
    if (status < 400 || status > 499) {
      return verdict("fail", `a malformed JSON body got HTTP ${status}; the host's mistake is a 4xx`);
    }
    if (!reply.ok || reply.type !== "error") {
      return verdict("fail", `a malformed JSON body got HTTP ${status} without an error envelope`);
    }
    return verdict(
      "pass",
      `a malformed JSON body got HTTP ${status} with error '${clip(String(reply.envelope.message), 100)}'`,
    );
  },
});
