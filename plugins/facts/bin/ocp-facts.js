#!/usr/bin/env node
// The `ocp-facts` command; its code is compiled to dist/ by `npm run build`.
import { main } from "../dist/cli.js";

const args = process.argv.slice(2);
const code = await main(args);
// A server keeps running until its transport ends the process; every other command ends here.
if (code !== 0 || args[0] !== "serve") process.exit(code);
