/**
 * Watching what a command line imports: a loader hook, passed to node with `--import`
 * before the program, that writes `imported: <label>` to stderr whenever the program
 * resolves `specifier`. Lazy loading is then asserted on a real, built CLI.
 */

/** The `--import` value that reports every resolution of `specifier` on stderr, as `label`. */
export function importWatch(specifier: string, label = specifier): string {
  const hook =
    "export async function resolve(specifier, context, next) {" +
    `  if (specifier === ${JSON.stringify(specifier)}) process.stderr.write(${JSON.stringify(`imported: ${label}\n`)});` +
    "  return next(specifier, context);" +
    "}";
  const register = `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`;
  return `data:text/javascript,${encodeURIComponent(register)}`;
}
