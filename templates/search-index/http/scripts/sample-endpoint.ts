/**
 * `npm run sample-endpoint`: the tests' stand-in search endpoint, on its own, so
 * `npm run query` and `npm run inspect` have something to ask before your endpoint
 * is set (src/provider.ts defaults SEARCH_URL to http://127.0.0.1:9200/docs/_search).
 * PORT picks another port. Ctrl-C stops it. Delete it with test/sample-endpoint.ts.
 */
import { startSampleEndpoint } from "../test/sample-endpoint.js";

const port = Number(process.env.PORT ?? 9200);
const endpoint = await startSampleEndpoint(port).catch((error: Error) => {
  process.stderr.write(`sample endpoint: cannot listen on 127.0.0.1:${port}: ${error.message} (set PORT)\n`);
  process.exit(1);
});
process.stderr.write(`sample endpoint: ${endpoint.url} (Ctrl-C stops it)\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void endpoint.close().then(() => process.exit(0)));
}
