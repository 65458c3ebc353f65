/**
 * A scaffolded project's README commands, run as written by scaffold-packages.test.ts
 * once the project's own `npm test` has passed: sample data, query, inspect (conformant,
 * no frame check skipped, over the transport the project ships), bench, start; the "Grow
 * it" codemods in one project, which is then tested again, and the same block checked in
 * the others. Commands that load src/provider.ts in-process run in a template's stdio
 * project only, when its http twin has the same command and inputs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Case, nameOf, npmTest } from "./scaffold-run.js";
import { cleanEnv, type Done, missedOnlyExitTiming, serving, shBlock, typed } from "./shell.js";

/** Records a step of a project's run: fails the run, with what it printed, unless it exited 0. */
export type Step = (name: string, done: Promise<Done>) => Promise<Done>;

/** What the README commands of one project need of the whole run. */
export interface ReadmeRun {
  /** Every project of the run. */
  readonly cases: readonly Case[];
  /** The folder the projects are made in, each under its name. */
  readonly projects: string;
  /** The project whose README's "Grow it" commands run (the others' are checked to be the same). */
  readonly grows: string;
}

/** What the README's inspect report must say: conformant, and no check that needs frames skipped. */
const FRAME_CHECKS = ["frame-validity", "budget-honesty", "cost-honesty", "kinds-filter", "max-frames"];

/**
 * README commands that load src/provider.ts in-process (`ocp query`, `ocp bench`): the
 * transport plays no part in them, so where a template's http project has the same
 * command and the same inputs as its stdio project, they run in the stdio one only.
 */
const IN_PROCESS = /^npm run (query|bench)\b/;

/**
 * What in-process commands read, by project, as created (before any command runs or grows
 * it): all files of src/, scripts/ and data/ but the entry point and the inspect script,
 * the sample question (test/sample.ts), and the scripts that run them — with the project's
 * own name (in its provider's `name`) made neutral.
 */
const createdInputs = new Map<string, Map<string, string>>();

/** Records what the in-process commands of the project of `c`, just created in `dir`, read. */
export function recordInputs(c: Case, dir: string): void {
  const neutral = (text: string) => text.replaceAll(nameOf(c), "<project>");
  const files = new Map<string, string>();
  for (const folder of ["src", "scripts", "data"]) {
    if (!existsSync(join(dir, folder))) continue;
    for (const path of readdirSync(join(dir, folder), { recursive: true, encoding: "utf8" })) {
      const file = join(folder, path);
      // main.ts and inspect.ts differ by transport; neither is read by `ocp query` or `ocp bench`.
      if (
        file !== join("src", "main.ts") &&
        file !== join("scripts", "inspect.ts") &&
        statSync(join(dir, file)).isFile()
      )
        files.set(file, neutral(readFileSync(join(dir, file), "utf8")));
    }
  }
  files.set("test/sample.ts", readFileSync(join(dir, "test", "sample.ts"), "utf8"));
  const { scripts } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  files.set("package.json scripts", JSON.stringify([scripts.query, scripts.bench]));
  createdInputs.set(nameOf(c), files);
}

/** The stdio project whose run of `command` stands for this http project's, if there is one. */
function stdioTwin(c: Case, command: string, run: ReadmeRun): Case | undefined {
  if (c.transport !== "http" || !IN_PROCESS.test(command)) return undefined;
  const twin = run.cases.find((o) => o.template === c.template && o.index === c.index && o.transport === "stdio");
  const mine = createdInputs.get(nameOf(c));
  const theirs = twin === undefined ? undefined : createdInputs.get(nameOf(twin));
  if (twin === undefined || mine === undefined || theirs === undefined) return undefined;
  const twinReadme = readFileSync(join(run.projects, nameOf(twin), "README.md"), "utf8");
  if (!shBlock(twinReadme, "Commands").includes(command)) return undefined;
  const same = mine.size === theirs.size && [...mine].every(([file, text]) => theirs.get(file) === text);
  return same ? twin : undefined;
}

/** Runs every command of the project's README, as written, in order. */
export async function readmeCommands(c: Case, dir: string, step: Step, run: ReadmeRun): Promise<void> {
  const readme = readFileSync(join(dir, "README.md"), "utf8");
  const env = cleanEnv();
  const servers: ReturnType<typeof serving>[] = [];
  const expectOk = (name: string, done: Done, check: (done: Done) => string | undefined) => {
    const problem = check(done);
    return step(
      name,
      Promise.resolve(problem === undefined ? done : { ...done, code: -1, output: `${problem}\n${done.output}` }),
    );
  };
  try {
    for (const command of shBlock(readme, "Commands")) {
      if (command === "npm test") continue; // ran above
      if (command === "npm run sample-endpoint") {
        // "in another terminal": on a free port, which the commands after it are pointed at.
        const endpoint = serving(command, dir, { ...env, PORT: "0" }, /sample endpoint: (http:\/\/\S+)/);
        servers.push(endpoint);
        env.SEARCH_URL = (await endpoint.up)[1] as string;
        continue;
      }
      if (command === "npm start") {
        if (c.transport === "http") {
          const server = serving(command, dir, { ...env, PORT: "0" }, /listening on (http:\/\/\S+)/);
          servers.push(server);
          const url = (await server.up)[1] as string;
          const reply = await fetch(url, {
            method: "POST",
            // As a host sends it: the transport answers 415 to anything but JSON.
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" }),
          });
          await expectOk(`README: ${command}`, { code: 0, output: server.output(), stdout: "", ms: 0 }, () =>
            reply.ok ? undefined : `POST ${url} answered ${reply.status}`,
          );
        } else {
          // A host writes a handshake and reads the ack; stdin then closes, and it exits.
          const handshake = `${JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" })}\n`;
          const done = await typed(command, dir, env, { input: handshake });
          await expectOk(`README: ${command}`, done, (d) =>
            d.code === 0 && d.stdout.includes('"type":"handshake_ack"')
              ? undefined
              : "no handshake_ack, or a failed exit",
          );
        }
        continue;
      }
      const twin = stdioTwin(c, command, run);
      if (twin !== undefined) {
        // Its test (the twin's) fails if the command fails there.
        await step(
          `README: ${command}: as in ${nameOf(twin)}`,
          Promise.resolve({ code: 0, output: "", stdout: "", ms: 0 }),
        );
        continue;
      }
      let done = await typed(command, dir, env);
      // The exit checks allow 2 s after EOF or shutdown; on a loaded machine a provider still
      // loading its tokenizer (right after the handshake) can miss that, whatever the README
      // says. Such a run, and only such a run, is tried once more.
      if (command === "npm run inspect" && missedOnlyExitTiming(done.stdout)) {
        const again = await typed(command, dir, env);
        done = { ...again, output: `(first run missed only the exit timing; ran again)\n${again.output}` };
      }
      await expectOk(`README: ${command}`, done, (d) => {
        if (d.code !== 0) return `exit ${d.code}`;
        if (command.startsWith("npm run query") && !/^ *1\. /m.test(d.stdout)) return "no frame in its answer";
        if (command === "npm run bench" && !/^tokens shipped +mean [1-9]/m.test(d.stdout)) return "shipped nothing";
        if (command === "npm run inspect") {
          if (!/^CONFORMANT: /m.test(d.stdout)) return "not CONFORMANT";
          // What the project ships is what is checked: over HTTP, the server src/main.ts starts.
          if (!new RegExp(`^ocp inspect · ${c.transport} · `, "m").test(d.stdout))
            return `not inspected over ${c.transport}`;
          const skipped = FRAME_CHECKS.filter((name) => new RegExp(`^ – ${name} `, "m").test(d.stdout));
          if (skipped.length > 0) return `frame checks skipped: ${skipped.join(", ")}`;
        }
        return undefined;
      });
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  const grow = shBlock(readme, "Grow it");
  if (nameOf(c) !== run.grows) {
    // The same block in every README: running it in one project covers them all.
    const other = join(run.projects, run.grows, "README.md");
    if (!existsSync(other)) return; // not among OCP_SCAFFOLD_CASES
    const grown = shBlock(readFileSync(other, "utf8"), "Grow it");
    await expectOk(
      "README: Grow it (same as the one run)",
      { code: 0, output: grow.join("\n"), stdout: "", ms: 0 },
      () =>
        JSON.stringify(grow) === JSON.stringify(grown)
          ? undefined
          : `differs from ${run.grows}'s: ${JSON.stringify(grown)}`,
    );
    return;
  }
  for (const command of grow)
    await expectOk(`README: ${command}`, await typed(command, dir, env), (d) =>
      d.code === 0 ? undefined : `exit ${d.code}`,
    );
  // The plugin it added and the one it generated typecheck, and their tests pass.
  await step("npm test (grown)", npmTest(dir));
}
