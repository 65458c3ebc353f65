/**
 * Whether a command colours what it writes: the one rule every bin of this
 * repository follows. `NO_COLOR` (set and not empty, no-color.org) turns colour
 * off, and wins; `FORCE_COLOR` turns it on without a terminal (`0` or `false`
 * turn it off), as Node and chalk read it; otherwise colour only on a terminal
 * that is not `TERM=dumb`.
 */

/** True when output to `stream` should carry ANSI colour. */
export function useColor(
  stream: { isTTY?: boolean } = process.stdout,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  return stream.isTTY === true && env.TERM !== "dumb";
}
