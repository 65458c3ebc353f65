/**
 * The search-index adapters on an index like a user's own: the READMEs of two dozen
 * command-line tools, written here, each a page long — what an FTS5 table or a lunr index
 * of /usr/share/doc holds. Every README says how it is installed, where its files are and
 * that its options are documented in its manual, so "files", "documented", "options" and
 * "configuration" are in most of them; each also says what its own tool does.
 *
 * - A goal about a tool gets frames; a goal about something the index does not cover gets
 *   none, even when half of its words are the words most READMEs hold ("where are the
 *   bash startup files documented" was answered with the wget and xz READMEs at 0.43–0.47).
 * - A frame cut from a long README cites the lines it holds, in its citation and in its
 *   provenance, and those lines of the README are exactly its content.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ContextFrame, defineProvider, type Plugin } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CorpusDoc, startEndpoint, writeFts5, writeMkdocsIndex } from "../../bench/search-index-corpora.js";
import { httpSearch } from "../../templates/search-index/http/src/adapters/http-search.js";
import { lunrIndex } from "../../templates/search-index/lunr/src/adapters/lunr-index.js";
import { sqliteFts5 } from "../../templates/search-index/sqlite/src/adapters/sqlite-fts5.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";

const BASE = "https://tools.test/";

/** Each tool and what only its README says: the subject a goal about it asks after. */
const TOOLS: Record<string, string> = {
  wget: "wget downloads web pages over HTTP, HTTPS and FTP. To resume a partially downloaded download, run wget --continue with the same URL.",
  xz: "xz compresses with the LZMA2 algorithm. The highest compression level is -9; add --extreme to squeeze harder.",
  tar: "tar bundles a directory tree into one archive. To extract an archive, run tar -xf archive.tar in the target directory.",
  rsync:
    "rsync mirrors a tree to another host, sending only the changed blocks over ssh; --delete removes what the source lost.",
  curl: "curl transfers a URL and prints the body; -o saves it, and --retry retries a transient failure.",
  gzip: "gzip compresses with DEFLATE; gunzip restores the original and keeps its timestamp.",
  grep: "grep prints the lines matching a regular expression; -r searches recursively and -i ignores letter case.",
  sed: "sed edits a stream line by line; s/old/new/g replaces every match, and -i edits in place.",
  awk: "awk splits each line into fields; $1 is the first field and NR counts records.",
  find: "find walks a tree and tests each entry; -mtime -1 selects what was modified in the last day.",
  ssh: "ssh opens an encrypted login shell on a remote host; keys in authorized_keys allow a login without a password.",
  git: "git records snapshots of a tree in commits; git bisect finds the commit that introduced a bug.",
  make: "make rebuilds targets whose prerequisites changed, following the rules of a Makefile.",
  cron: "cron runs commands on a schedule; each crontab line names minute, hour, day, month and weekday.",
  tmux: "tmux keeps terminal sessions running after you detach; tmux attach brings a session back.",
  htop: "htop shows running processes by CPU and memory use; F9 sends a signal to the selected process.",
  jq: "jq filters JSON documents; .items[].name prints the name of every item.",
  zstd: "zstd compresses fast with dictionaries; --train builds a dictionary from sample inputs.",
  nginx: "nginx serves static websites and proxies requests to upstream servers; a location block routes by path.",
  sqlite3:
    "sqlite3 opens a database file and runs SQL; .tables lists the tables and .schema shows how they were created.",
  ffmpeg: "ffmpeg converts video and audio between codecs; -ss seeks to a timestamp before cutting a clip.",
  pandoc: "pandoc converts markdown to HTML, PDF or Word documents through a common document model.",
  gpg: "gpg signs and encrypts with OpenPGP keys; gpg --verify checks a detached signature.",
  ripgrep: "ripgrep searches directories for a regex pattern, skipping what .gitignore ignores.",
};

/** The same few paragraphs, varied a little, in every README: the words of any index of them. */
function readme(tool: string, about: string, n: number): string {
  const paragraphs = [
    `# ${tool}\n\n${about}`,
    `## Installing\n\nInstall ${tool} with the package manager of your system, or build it from the source release: run ./configure, then make and make install. The build needs a C compiler and the usual development files.`,
    n % 3 === 0
      ? `## Usage\n\nRun ${tool} --help for a summary of its options. Every option is documented in the manual page, ${tool}(1), and most have a short and a long form.`
      : `## Usage\n\nThe options of ${tool} are documented in its manual page; ${tool} --help prints a summary. Options can also be set in a configuration file.`,
    `## Files\n\nThe configuration files of ${tool} live in /etc and in your home directory; a file there overrides the defaults compiled in. Example files are installed beside this README.`,
    n % 4 === 0
      ? "## Reporting bugs\n\nReport bugs to the mailing list with the version, the command you ran and its full output. Patches are welcome."
      : `## Reporting bugs\n\nReport bugs in the tracker of the ${tool} project; say which version you run and how to reproduce the problem.`,
    "## License\n\nThis program is free software, distributed under the terms of its license, without any warranty. See the COPYING file for the details.",
  ];
  return `${paragraphs.join("\n\n")}\n`;
}

const DOCS: CorpusDoc[] = Object.entries(TOOLS).map(([tool, about], n) => ({
  title: `${tool} README`,
  body: readme(tool, about, n),
  url: `${BASE}${tool}/README`,
}));

/** Goals about what one README says, with that README. */
const ON_TOPIC: [goal: string, tool: string][] = [
  ["how do I resume a partially downloaded file with wget", "wget"],
  ["which xz compression level is the highest", "xz"],
  ["extract a tar archive into a directory", "tar"],
  ["mirror a tree to another host and delete what the source lost", "rsync"],
  ["find the commit that introduced a bug", "git"],
  ["log in over ssh without a password", "ssh"],
  ["bring back a detached terminal session", "tmux"],
  ["list the tables of an sqlite database", "sqlite3"],
];

/**
 * Goals about subjects none of the READMEs covers, each half made of the words most of
 * them hold: files, documented, configuration, options, install.
 */
const OFF_TOPIC = [
  "where are the bash startup files documented",
  "where is the zsh prompt configuration documented",
  "fish abbreviations configuration files",
  "emacs init files documented options",
  "which options does the printer spooler daemon install",
  "kubernetes helm chart configuration files",
];

const tmp = mkdtempSync(join(tmpdir(), "ocp-search-floor-"));
const endpoints: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.close()));
  rmSync(tmp, { recursive: true, force: true });
});

const plugins = new Map<string, () => Plugin>();
beforeAll(async () => {
  const lunrFile = writeMkdocsIndex(DOCS, BASE, join(tmp, "search_index.json"));
  plugins.set("lunr", () => lunrIndex({ file: lunrFile, baseUrl: BASE }));
  const sqliteFile = writeFts5(DOCS, join(tmp, "readmes.sqlite"));
  plugins.set("sqlite", () =>
    sqliteFts5({ file: sqliteFile, table: "pages", columns: { content: "body", title: "title", uri: "url" } }),
  );
  const endpoint = await startEndpoint(DOCS);
  endpoints.push(endpoint);
  plugins.set("http", () =>
    httpSearch({
      url: endpoint.url,
      hits: "hits.hits",
      fields: { content: "_source.body", title: "_source.title", uri: "_source.url", id: "_id", score: "_score" },
    }),
  );
});

/** `ocp query`'s defaults. */
async function ask(adapter: string, goal: string): Promise<ContextFrame[]> {
  const provider = defineProvider({
    name: "floor-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [(plugins.get(adapter) as () => Plugin)()],
  });
  try {
    const result = await provider.query({ goal, kinds: [], anchors: [], max_tokens: 1024, max_frames: 8 });
    assertReferenceValid({ type: "frames", result });
    return result.frames;
  } finally {
    await provider.close();
  }
}

const summary = (frames: ContextFrame[]) => frames.map((frame) => `${frame.title} ${frame.score}`).join(", ");

describe.each(["lunr", "sqlite", "http"])("the %s adapter over an index of READMEs", (adapter) => {
  it("answers a goal about a tool with its README first", async () => {
    for (const [goal, tool] of ON_TOPIC) {
      const frames = await ask(adapter, goal);
      expect(frames[0]?.title, `${goal} → ${summary(frames)}`).toBe(`${tool} README`);
    }
  });

  it("answers no goal about a subject the index does not cover, half of its words those most READMEs hold", async () => {
    const answered: string[] = [];
    for (const goal of OFF_TOPIC) {
      const frames = await ask(adapter, goal);
      if (frames.length > 0) answered.push(`"${goal}" → ${summary(frames)}`);
    }
    expect(answered).toEqual([]);
  });

  it("cites the lines of a README its frame holds, and those lines are its content", async () => {
    const frames = await ask(adapter, "how do I resume a partially downloaded file with wget");
    const frame = frames[0] as ContextFrame;
    const doc = DOCS.find((candidate) => candidate.url === frame.uri) as CorpusDoc;
    // A README is longer than an eighth of 1024 tokens: what ships is the passage about resuming.
    expect(frame.content.length).toBeLessThan(doc.body.length);
    expect(frame.content).toContain("--continue");
    const [, start, end] = /^L(\d+)-(\d+)$/.exec(frame.provenance[0]?.range ?? "") ?? [];
    expect(frame.citation_label).toBe(`${doc.url} L${start}-${end}`);
    const lines = doc.body.split(/(?<=\n)/).slice(Number(start) - 1, Number(end));
    expect(lines.join("")).toBe(frame.content);
  });
});
