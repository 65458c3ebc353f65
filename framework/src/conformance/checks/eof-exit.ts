/** eof-exit (R2): the provider exits with code 0 within 2 s of its stdin closing. */
import { defineCheck } from "./shared/check.js";
import { exitVerdict } from "./shared/exit-check.js";

/** The eof-exit check. */
export const eofExit = defineCheck({
  name: "eof-exit",
  appliesTo: ["stdio"],
  elsewhere: "stdio only: an HTTP provider has no stdin to close",
  uses: "own-session",
  hazard: "ends-session",
  run: (ctx) => exitVerdict(ctx, "eof"),
});
