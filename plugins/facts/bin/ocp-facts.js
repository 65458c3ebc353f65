#!/usr/bin/env node
// The `ocp-facts` command; its code is compiled to dist/ by `npm run build`.
import { main } from "../dist/cli.js";

const code = await main(process.argv.slice(2));
// A server keeps running until its transport ends the process (however the line put
// `serve` among the store options); every other command ends here.
if (code !== "serving") process.exit(code);
