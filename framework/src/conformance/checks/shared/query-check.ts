/**
 * A check that judges the main session's probe queries: not run when they could not
 * be sent (the handshake failed), otherwise its judge's verdict.
 */
import { type Check, type CheckContext, type CheckVerdict, defineCheck } from "./check.js";
import type { MainQueries } from "./main-session.js";

/** What a query check's judge reads. */
export type QueryRun = Extract<MainQueries, { ran: true }>;

/** Declares a check judged on the main session's probe queries. */
export function defineQueryCheck<const Name extends string>(
  check: Omit<Check<Name>, "uses" | "run"> & { judge: (run: QueryRun, ctx: CheckContext) => CheckVerdict },
): Check<Name> {
  const { judge, ...rest } = check;
  return defineCheck({
    ...rest,
    uses: "main-session",
    run: async (ctx) => {
      const queries = await ctx.main.queries();
      return queries.ran ? judge(queries, ctx) : queries.notRun;
    },
  });
}
