import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../../test/test-support/reference-schema.js";
import { silentLogger } from "../../provider/logger.js";
import { definePlugin } from "../../provider/plugin.js";
import { defineProvider } from "../../provider/provider.js";
import { connectInMemory } from "../../testing/index.js";
import { serveStdio } from "./server.js";

/** A provider whose single plugin answers after the delay named in the goal ("wait 30"). */
function delayedProvider() {
  return defineProvider({
    name: "delayed",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [
      definePlugin({
        name: "delay",
        kinds: ["doc"],
        search: async (query, ctx) => {
          const ms = Number(/wait (\d+)/.exec(query.goal)?.[1] ?? 0);
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            ctx.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(ctx.signal.reason);
            });
          });
          return [{ id: query.goal, content: `answer to ${query.goal}`, relevance: 1 }];
        },
      }),
    ],
  });
}

/** A provider whose single plugin answers at once, with one frame whose id names the goal. */
function instantProvider() {
  return defineProvider({
    name: "instant",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [
      definePlugin({
        name: "echo",
        kinds: ["doc"],
        search: (query) => [{ id: query.goal, content: query.goal, relevance: 1 }],
      }),
    ],
  });
}

const q = (goal: string) => ({
  type: "query",
  query: { goal, kinds: [], anchors: [], max_frames: 5, max_tokens: 500 },
});

describe("stdio transport", () => {
  it("writes replies in request order while pipelined queries run concurrently", async () => {
    // Every search waits until all of them have started: handled one at a time, none
    // would ever finish. Then they finish in reverse order of arrival.
    const goals = ["q0", "q1", "q2", "q3", "q4"];
    let started = 0;
    let releaseAll: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => {
      releaseAll = resolve;
    });
    const finished: string[] = [];
    const provider = defineProvider({
      name: "barrier",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "barrier",
          kinds: ["doc"],
          search: async (query) => {
            if (++started === goals.length) releaseAll();
            await allStarted;
            await new Promise((resolve) => setTimeout(resolve, 10 * (goals.length - goals.indexOf(query.goal))));
            finished.push(query.goal);
            return [{ id: query.goal, content: query.goal, relevance: 1 }];
          },
        }),
      ],
    });
    const connection = connectInMemory(provider);
    expect((await connection.handshake()).type).toBe("handshake_ack");
    for (const goal of goals) connection.send(q(goal));
    const replies = [];
    for (const _ of goals) replies.push(await connection.receive());
    expect(finished).toEqual([...goals].reverse());
    expect(replies.map((reply) => (reply.type === "frames" ? reply.result.frames[0]?.id : reply.type))).toEqual(
      goals.map((goal) => `barrier:${goal}`),
    );
    await connection.close();
  });

  it("keeps request order when replies ready at once follow one still being searched", async () => {
    // "slow" searches asynchronously; every other goal is answered synchronously, so its
    // reply is ready before the slow one's and must wait for it.
    const provider = defineProvider({
      name: "mixed",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "mixed",
          kinds: ["doc"],
          search: (query) => {
            const candidates = [{ id: query.goal, content: query.goal, relevance: 1 }];
            return query.goal === "slow"
              ? new Promise<typeof candidates>((resolve) => setTimeout(() => resolve(candidates), 30))
              : candidates;
          },
        }),
      ],
    });
    const connection = connectInMemory(provider);
    expect((await connection.handshake()).type).toBe("handshake_ack");
    // A first answer means setup is over: from now on sync answers are ready at once.
    connection.send(q("warm-up"));
    expect((await connection.receive()).type).toBe("frames");
    const goals = ["fast0", "slow", "fast1", "fast2"];
    // One write, so every line is read before the slow search ends.
    connection.send(goals.map((goal) => `${JSON.stringify(q(goal))}\n`).join(""));
    const replies = [];
    for (const _ of goals) replies.push(await connection.receive());
    expect(replies.map((reply) => (reply.type === "frames" ? reply.result.frames[0]?.id : reply.type))).toEqual(
      goals.map((goal) => `mixed:${goal}`),
    );
    await connection.close();
  });

  it("answers every kind of bad input with a named error and keeps serving (R1)", async () => {
    const connection = connectInMemory(delayedProvider(), { maxLineBytes: 4096 });
    const before = await connection.request(q("too early"));
    expect(before).toEqual({ type: "error", message: expect.stringContaining("query before handshake") });
    await connection.handshake();
    const bad: [string, RegExp][] = [
      ["{not json\n", /malformed JSON/],
      ["[1,2,3]\n", /must be a JSON object/],
      ['{"no":"type"}\n', /no string 'type'/],
      ['{"type":"teleport"}\n', /unknown envelope type 'teleport'/],
      ['{"type":"frames","result":{"frames":[],"truncated":false}}\n', /'frames' is sent by a provider/],
      ['{"type":"handshake_ack"}\n', /'handshake_ack' is sent by a provider/],
      ['{"type":"query","query":{"goal":"x","max_frames":-1,"max_tokens":5}}\n', /max_frames/],
      [
        '{"type":"query","query":{"goal":"x","kinds":["image"],"max_frames":1,"max_tokens":5}}\n',
        /unsupported frame kind: 'image'/,
      ],
      [`${"x".repeat(10_000)}\n`, /line too long: over 4096 bytes/],
      ['{"type":"handshake","protocol_version":"ocp/2.0"}\n', /host speaks ocp\/2\.0 .*speaks ocp\/1\.0-draft/],
      ["\u0000\u0001\u00ff garbage\n", /malformed JSON/],
    ];
    for (const [line, message] of bad) {
      const reply = await connection.request(line);
      expect(reply.type, line.slice(0, 40)).toBe("error");
      expect(reply.type === "error" ? reply.message : "", line.slice(0, 40)).toMatch(message);
    }
    const after = await connection.request(q("still alive"));
    expect(after.type).toBe("frames");
    for (const line of connection.lines) assertReferenceValid(JSON.parse(line));
    await connection.close();
  });

  it("accepts CRLF, blank lines and unknown fields", async () => {
    const connection = connectInMemory(delayedProvider());
    connection.send('\r\n\r\n{"type":"handshake","protocol_version":"ocp/1.3","future":true}\r\n\r\n');
    expect((await connection.receive()).type).toBe("handshake_ack");
    const reply = await connection.request(
      `${JSON.stringify({ ...q("x"), extra: { nested: 1 }, query: { ...q("x").query, as_of: null, novel: [1] } })}\r\n`,
    );
    expect(reply.type).toBe("frames");
    await connection.close();
  });

  it("on shutdown writes the replies still in flight, then ends; nothing after it is read", async () => {
    const connection = connectInMemory(delayedProvider());
    await connection.handshake();
    connection.send(q("wait 80"));
    connection.send({ type: "shutdown" });
    connection.send(q("after shutdown"));
    expect(await connection.server.closed).toBe("shutdown");
    const reply = await connection.receive();
    expect(reply.type === "frames" && reply.result.frames[0]?.id).toBe("delay:wait 80");
    expect(connection.lines).toHaveLength(2); // the ack and that one reply
  });

  it("on EOF drains in-flight replies and ends", async () => {
    const connection = connectInMemory(delayedProvider());
    await connection.handshake();
    connection.send(q("wait 50"));
    expect(await connection.close()).toBe("eof");
    expect((await connection.receive()).type).toBe("frames");
  });

  /** A session on a pipe the host reads at once: what it wrote, as envelopes, and how it ended. */
  function pipedSession(options: { drainMs?: number; stallMs?: number } = {}) {
    const input = new PassThrough();
    const written: string[] = [];
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        return true;
      },
    });
    const server = serveStdio(delayedProvider(), { input, output, ...options });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    const replies = () => written.slice(1).map((line) => JSON.parse(line) as { type: string; result?: unknown });
    return { input, server, replies };
  }

  it("after EOF answers a query slower than the drain window with its frames: a piped batch gets every answer", async () => {
    const { input, server, replies } = pipedSession({ drainMs: 50, stallMs: 100 });
    // Slower than the drain window and than stallMs: neither may cut a query short after EOF alone.
    input.write(`${JSON.stringify(q("wait 400"))}\n${JSON.stringify(q("wait 10"))}\n`);
    input.end();
    const started = Date.now();
    expect(await server.closed).toBe("eof");
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(replies().map((reply) => reply.type)).toEqual(["frames", "frames"]);
  });

  it("a signal after EOF gives what is still running the drain window, then answers it with an error", async () => {
    const { input, server, replies } = pipedSession({ drainMs: 50 });
    input.write(`${JSON.stringify(q("wait 5000"))}\n`);
    input.end();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = Date.now();
    expect(await server.close("signal")).toBe("eof");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(replies().map((reply) => reply.type)).toEqual(["error"]);
  });

  it("answers a query that outlives the drain window with an error instead of silence", async () => {
    const connection = connectInMemory(delayedProvider());
    await connection.handshake();
    connection.send(q("wait 5000"));
    const started = Date.now();
    await connection.server.close("signal");
    // R2 allows a second; the drain window is 700 ms. The margin absorbs a loaded machine.
    expect(Date.now() - started).toBeLessThan(1500);
    const reply = await connection.receive();
    expect(reply.type).toBe("error");
  });

  it("holds replies while the output is full, then writes them all in order before it ends", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    let full = true;
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        // The first write fills the pipe: nothing more may be written until 'drain'.
        const accepted = !full;
        full = false;
        return accepted;
      },
    });
    const server = serveStdio(delayedProvider(), { input, output });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    for (const goal of ["a", "b", "c"]) input.write(`${JSON.stringify(q(goal))}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toHaveLength(1); // the ack; the frames wait for the drain
    input.end();
    const closed = server.closed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    output.emit("drain");
    expect(await closed).toBe("eof");
    const ids = written.slice(1).map((line) => JSON.parse(line).result.frames[0].id);
    expect(ids).toEqual(["delay:a", "delay:b", "delay:c"]);
  });

  it("ends without waiting for a drain that will never come when the output breaks", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        return false; // full from the first write on
      },
    });
    const server = serveStdio(delayedProvider(), { input, output });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    input.write(`${JSON.stringify(q("a"))}\n`);
    await new Promise((resolve) => setTimeout(resolve, 30));
    output.emit("error", new Error("EPIPE"));
    const started = Date.now();
    expect(await server.closed).toBe("output-error");
    expect(Date.now() - started).toBeLessThan(500);
    expect(written).toHaveLength(1); // the ack; nothing is written once the output broke
  });

  it("takes no more requests while the output is saturated, and takes them all on, in order, once it drains", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    let accepting = true;
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        return accepting;
      },
    });
    let searched = 0;
    const provider = defineProvider({
      name: "counting",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "count",
          kinds: ["doc"],
          search: (query) => {
            searched++;
            return [{ id: query.goal, content: query.goal, relevance: 1 }];
          },
        }),
      ],
    });
    const server = serveStdio(provider, { input, output });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    input.write(`${JSON.stringify(q("warm-up"))}\n`);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(written).toHaveLength(2);

    accepting = false; // the host stops reading: the next write fills the pipe
    // Many reads' worth of requests, each line in its own chunk, then some garbage lines
    // whose errors are ready at once.
    for (let i = 0; i < 500; i++) input.write(`${JSON.stringify(q(`g${i}`))}\n`);
    for (let i = 0; i < 50; i++) input.write("not json\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(input.isPaused()).toBe(true);
    // One request was taken on and answered (its write returned false); the rest wait unread or held.
    expect(written).toHaveLength(3);
    expect(searched).toBeLessThanOrEqual(2);

    accepting = true;
    output.emit("drain");
    input.end();
    expect(await server.closed).toBe("eof");
    const replies = written.slice(2).map((line) => JSON.parse(line));
    expect(replies).toHaveLength(550);
    expect(replies.slice(0, 500).map((reply) => reply.result.frames[0].id)).toEqual(
      Array.from({ length: 500 }, (_, i) => `count:g${i}`),
    );
    expect(replies.slice(500).every((reply) => reply.type === "error")).toBe(true);
  });

  it("takes on at most maxPending requests, whatever order their searches finish in; every reply comes, in order", async () => {
    // The issue's case: replies behind one still being searched are ready but cannot be
    // written, so only the bound on requests taken on keeps the provider from reading on.
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 4 }),
        async (s, maxPending, count, chunks) => {
          const written: string[] = [];
          const output = Object.assign(new EventEmitter(), {
            write(chunk: string | Uint8Array) {
              written.push(String(chunk));
              return true;
            },
          });
          // Takes on what was written and does not pause: the bound must hold all the same.
          const input = new EventEmitter();
          let mostTakenOn = 0;
          const provider = defineProvider({
            name: "scheduled",
            version: "1.0.0",
            dataFlow: { reads: true, writes: false, egress: false },
            logger: silentLogger,
            plugins: [
              definePlugin({
                name: "scheduled",
                kinds: ["doc"],
                search: (query) => {
                  // Taken on and not yet written, this one included (the ack is written at once).
                  const takenOn = calls++ + 1 - (written.length - 1);
                  mostTakenOn = Math.max(mostTakenOn, takenOn);
                  return s.schedule(Promise.resolve([{ id: query.goal, content: query.goal, relevance: 1 }]));
                },
              }),
            ],
          });
          let calls = 0;
          const server = serveStdio(provider, { input, output, maxPending });
          const text =
            '{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n' +
            Array.from({ length: count }, (_, i) => `${JSON.stringify(q(`g${i}`))}\n`).join("");
          const size = Math.ceil(text.length / chunks);
          for (let at = 0; at < text.length; at += size) input.emit("data", text.slice(at, at + size));
          input.emit("end");
          expect(await s.waitFor(server.closed)).toBe("eof");
          expect(mostTakenOn).toBeLessThanOrEqual(maxPending);
          const replies = written.slice(1).map((line) => JSON.parse(line));
          expect(replies.map((reply) => reply.result?.frames[0].id)).toEqual(
            Array.from({ length: count }, (_, i) => `scheduled:g${i}`),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("after EOF answers every query still held behind a full output, however long a reading host takes", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    // The host reads one reply at a time, every 20 ms: each write fills the pipe until its drain.
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        setTimeout(() => output.emit("drain"), 20);
        return false;
      },
    });
    // Answers at once, so a reply is written (and fills the pipe) while its chunk is still being read.
    const provider = instantProvider();
    const server = serveStdio(provider, { input, output, drainMs: 100 });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    // One chunk, as a pipe delivers 64 KiB at once: lines past the first full write are held, not unread.
    input.write(Array.from({ length: 30 }, (_, i) => `${JSON.stringify(q(`g${i}`))}\n`).join(""));
    input.end();
    // ~30 replies at 20 ms each: well past the 100 ms drain window, and the host kept reading.
    expect(await server.closed).toBe("eof");
    const replies = written.slice(1).map((line) => JSON.parse(line));
    expect(replies.map((reply) => reply.type)).toEqual(Array.from({ length: 30 }, () => "frames"));
    expect(replies.map((reply) => reply.result.frames[0].id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `echo:g${i}`),
    );
  });

  it("after EOF answers each held query, however late it is taken on: past the drain window too", async () => {
    // A source that cannot pause: what it sends while the output is full is held, in order.
    const input = new EventEmitter();
    const written: string[] = [];
    let full = false;
    let reading = false;
    const read = () => setTimeout(() => output.emit("drain"), 20);
    // Once full, the pipe takes one reply at a time; a reading host reads each 20 ms after it was written.
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        if (full && reading) read();
        return !full;
      },
    });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    // Answers "now …" at once and "wait 45" after 45 ms, failing if aborted first.
    const provider = defineProvider({
      name: "mixed",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "mixed",
          kinds: ["doc"],
          search: (query, ctx) => {
            const frame = { id: query.goal, content: query.goal, relevance: 1 };
            if (query.goal.startsWith("now")) return [frame];
            return new Promise((resolve, reject) => {
              const timer = setTimeout(() => resolve([frame]), 45);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(timer);
                reject(ctx.signal.reason);
              });
            });
          },
        }),
      ],
    });
    // The host reads again only once the session ends: every line below is still held then.
    const onEnd = () => {
      reading = true;
      read();
    };
    const server = serveStdio(provider, { input, output, drainMs: 100, onEnd });
    // A first query loads what a first query loads (tokenizer tables), so the timing below is the searches'.
    input.emit("data", `{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n${JSON.stringify(q("now warm"))}\n`);
    await until(() => written.length === 2);
    full = true;
    // The first reply fills the pipe; the rest is held. Each "now" is answered and written as
    // it is taken on, one per read (at ~20, 40, 60 ms after the end); the query after them is
    // taken on at ~80 ms and searches for 45 — past the 100 ms a shutdown would have given it.
    const goals = ["now 0", "now 1", "now 2", "now 3", "wait 45", "now 4"];
    input.emit("data", goals.map((goal) => `${JSON.stringify(q(goal))}\n`).join(""));
    input.emit("end");
    expect(await server.closed).toBe("eof");
    const replies = written.slice(2).map((line) => JSON.parse(line));
    expect(replies.map((reply) => reply.result?.frames[0].id)).toEqual(goals.map((goal) => `mixed:${goal}`));
  });

  it("after EOF ends only once every held line is answered, also when the output takes some replies at once", async () => {
    // A source that cannot pause: what it sends while the output is full is held, in order.
    const input = new EventEmitter();
    const written: string[] = [];
    // The pipe takes two replies of every three at once; the third fills it until the host reads, 5 ms later.
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        if (written.length % 3 !== 0) return true;
        setTimeout(() => output.emit("drain"), 5);
        return false;
      },
    });
    const server = serveStdio(instantProvider(), { input, output });
    // After a first query (it waits for the tokenizer tables), replies are ready as their lines are taken on.
    input.emit("data", `{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n${JSON.stringify(q("warm"))}\n`);
    while (written.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    // One chunk, as a pipe delivers 64 KiB at once: lines past the first full write are held.
    input.emit("data", Array.from({ length: 30 }, (_, i) => `${JSON.stringify(q(`g${i}`))}\n`).join(""));
    input.emit("end");
    expect(await server.closed).toBe("eof");
    const replies = written.slice(2).map((line) => JSON.parse(line));
    expect(replies.map((reply) => reply.result?.frames[0].id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `echo:g${i}`),
    );
  });

  it("ends once nothing could be written for stallMs after the end: a host that stopped reading forfeits the rest", async () => {
    const input = new PassThrough();
    const written: string[] = [];
    const output = Object.assign(new EventEmitter(), {
      write(chunk: string | Uint8Array) {
        written.push(String(chunk));
        return written.length < 2; // the ack goes; the first reply fills the pipe for good
      },
    });
    const server = serveStdio(delayedProvider(), { input, output, stallMs: 150 });
    input.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
    for (const goal of ["a", "b", "c"]) input.write(`${JSON.stringify(q(goal))}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    expect(await server.close("signal")).toBe("signal");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(written).toHaveLength(2);
  });
});
