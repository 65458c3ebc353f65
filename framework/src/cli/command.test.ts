import { describe, expect, it } from "vitest";
import { OcpError } from "../provider/errors.js";
import { type CommandIo, type CommandSpec, parseCommandArgs, runCommand, UsageError } from "./command.js";
import { runProviderCommand, SERVE_OPTIONS, serveOptionsOf } from "./provider-command.js";

/** Runs a command in-process, capturing what it writes. */
async function run(spec: CommandSpec, argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CommandIo = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  };
  const code = await runCommand(spec, argv, io);
  return { code, stdout, stderr };
}

const seen: unknown[] = [];
const plain: CommandSpec = {
  name: "demo",
  version: () => Promise.resolve("1.2.3"),
  usage: "Usage: demo [--n N]\n",
  synopsis: "demo [--n N]",
  options: { n: { type: "string" }, fail: { type: "boolean" } },
  run(args) {
    if (args.flag("fail")) throw new OcpError("OCP_ERR_MODULE_LOAD", "it broke");
    seen.push(args.whole("n", 1));
  },
};

const withCommands: CommandSpec = {
  name: "store",
  version: "9.9.9",
  usage: "Usage: store <put|get> [--db FILE]\n",
  synopsis: (command) => (command === undefined ? "store <command>" : `store ${command} ...`),
  options: { db: { type: "string" }, json: { type: "boolean" } },
  commands: {
    put: {
      options: { key: { type: "string" } },
      run: (args) => void seen.push([args.string("db"), args.required("key")]),
    },
    get: { positionals: 1, run: (args) => void seen.push(args.positionals[0]) },
  },
  commandUsage: (command) => `Usage: store ${command}\n`,
};

describe("runCommand", () => {
  it("--help and -h win over any mistake on the line; --version prints the version", async () => {
    expect(await run(plain, ["--bogus", "--help"])).toEqual({ code: 0, stdout: plain.usage, stderr: "" });
    expect(await run(plain, ["-h"])).toMatchObject({ code: 0, stdout: plain.usage });
    expect(await run(plain, ["--version"])).toEqual({ code: 0, stdout: "1.2.3\n", stderr: "" });
  });

  it("a usage error is one line naming the mistake and the synopsis, exit 2, nothing on stdout", async () => {
    expect(await run(plain, ["--bogus"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "demo: unknown option '--bogus' (usage: demo [--n N]; demo --help says more)\n",
    });
    expect((await run(plain, ["--n", "0"])).stderr).toMatch(/^demo: --n must be a whole number ≥ 1, not '0' \(usage/);
    expect((await run(plain, ["--n"])).stderr).toMatch(/^demo: option '--n' needs a value/);
  });

  it("a failure is exit 1 with the message and its code; success is 0", async () => {
    expect(await run(plain, ["--fail"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "demo: it broke (OCP_ERR_MODULE_LOAD)\n",
    });
    seen.length = 0;
    expect((await run(plain, ["--n", "4"])).code).toBe(0);
    expect(seen).toEqual([4]);
  });

  it("takes the shared options on either side of a subcommand's name", async () => {
    seen.length = 0;
    expect((await run(withCommands, ["--db", "a.db", "put", "--key", "k"])).code).toBe(0);
    expect((await run(withCommands, ["--db=b.db", "--json", "put", "--key", "k"])).code).toBe(0);
    expect((await run(withCommands, ["put", "--key", "k", "--db", "c.db"])).code).toBe(0);
    expect((await run(withCommands, ["get", "x"])).code).toBe(0);
    expect(seen).toEqual([["a.db", "k"], ["b.db", "k"], ["c.db", "k"], "x"]);
  });

  it("says which subcommand a mistake is in, and only shared options may come first", async () => {
    expect((await run(withCommands, ["put"])).stderr).toBe(
      "store put: --key is required (usage: store put ...; store put --help says more)\n",
    );
    expect((await run(withCommands, ["--key", "k", "put"])).stderr).toMatch(
      /^store: unknown option '--key' before the command: only --db and --json go there \(usage: store <command>;/,
    );
    expect((await run(withCommands, ["--db"])).stderr).toMatch(/option '--db' needs a value/);
    expect((await run(withCommands, ["nope"])).stderr).toMatch(/^store: unknown command 'nope'/);
    expect((await run(withCommands, ["get", "x", "y"])).stderr).toMatch(/^store get: unexpected argument 'y'/);
    expect(await run(withCommands, [])).toEqual({ code: 2, stdout: "", stderr: withCommands.usage });
  });

  it("has help for each subcommand, as --help after it or as help <command>", async () => {
    expect(await run(withCommands, ["put", "--bogus", "--help"])).toMatchObject({
      code: 0,
      stdout: "Usage: store put\n",
    });
    expect(await run(withCommands, ["help", "get"])).toMatchObject({ code: 0, stdout: "Usage: store get\n" });
    expect(await run(withCommands, ["help"])).toMatchObject({ code: 0, stdout: withCommands.usage });
    expect(await run(withCommands, ["--version"])).toMatchObject({ code: 0, stdout: "9.9.9\n" });
  });
});

describe("the serving options", () => {
  const serveOf = (argv: string[]) => serveOptionsOf(parseCommandArgs(argv, SERVE_OPTIONS));

  it("read --http, --token, --allow-origin and --mcp", () => {
    expect(serveOf([])).toEqual({ http: undefined, token: undefined, mcp: undefined });
    expect(serveOf(["--http", "[::1]:8080", "--token", "t", "--allow-origin", "https://a.example"])).toEqual({
      http: { host: "::1", port: 8080 },
      token: "t",
      allowedOrigins: ["https://a.example"],
      mcp: undefined,
    });
    expect(serveOf(["--mcp", "--allow-egress"]).mcp).toEqual({ allowEgress: true });
  });

  it.each([
    [["--http", "localhost:99999"], "--http expects [host:]port, not 'localhost:99999'"],
    [["--token", "t"], "--token needs --http"],
    [["--allow-origin", "https://a.example"], "--allow-origin needs --http"],
    [["--http", "0", "--allow-origin", "a.example"], "--allow-origin expects an origin like https://app.example"],
    [["--http", "0", "--mcp", "--allow-origin", "https://a.example"], "--allow-origin is for OCP over --http"],
    [["--allow-egress"], "--allow-egress goes with --mcp"],
  ])("refuse %j as a usage error", (argv, message) => {
    expect(() => serveOf(argv)).toThrow(UsageError);
    expect(() => serveOf(argv)).toThrow(message);
  });

  it("make a check's failure a usage error, before the provider is made", async () => {
    let made = false;
    let stderr = "";
    const code = await runProviderCommand(
      {
        name: "p",
        version: "1",
        usage: "Usage: p\n",
        synopsis: "p [options]",
        options: { root: { type: "string" } },
        check: () => {
          throw new RangeError("--root must be a directory");
        },
        toProvider: () => {
          made = true;
          throw new Error("unreachable");
        },
      },
      ["--root", "x"],
      { stdout: { write: () => true }, stderr: { write: (chunk: string) => (stderr += chunk) } },
    );
    expect({ code, made, stderr }).toEqual({
      code: 2,
      made: false,
      stderr: "p: --root must be a directory (usage: p [options]; p --help says more)\n",
    });
  });
});
