#!/usr/bin/env node
// The `ocp-symbols` command; its code is compiled to dist/ by `npm run build`.
import { main } from "../dist/cli.js";

const code = await main(process.argv.slice(2));
// A server keeps running until its transport ends the process; anything else ends here,
// even if something left a handle open.
if (code !== "serving") process.exit(code);
