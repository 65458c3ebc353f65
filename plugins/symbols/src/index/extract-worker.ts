/**
 * The worker thread of the extraction pool: runs {@link readAndExtract} for each job
 * of each batch the main thread sends, and posts the batch's outcomes back at once.
 */
import { parentPort } from "node:worker_threads";
import { typedArrayReplacer } from "../extract/bag.js";
import { type ExtractJob, readAndExtract } from "./read-extract.js";

if (parentPort === null) throw new Error("extract-worker must run in a worker thread");
const port = parentPort;
// Jobs are sent only to a worker that says it is up, so a booting worker never sits on a batch.
port.postMessage("ready");
let queue: Promise<void> = Promise.resolve();
port.on("message", (batch: { id: number; job: ExtractJob }[]) => {
  // One batch after another, in order; a batch is answered as one JSON string, which crosses
  // threads far faster than a structured clone of thousands of small objects (term bags as base64).
  queue = queue.then(async () => {
    const outcomes = [];
    for (const { id, job } of batch) outcomes.push({ id, outcome: await readAndExtract(job) });
    port.postMessage(JSON.stringify(outcomes, typedArrayReplacer));
  });
});
