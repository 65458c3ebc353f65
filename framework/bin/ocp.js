#!/usr/bin/env node
// The `ocp` command; its code is compiled to dist/ by `npm run build`.
import { main } from "../dist/cli/ocp.js";

const args = process.argv.slice(2);
const code = await main(args);
// A server keeps running until its transport ends the process; every other command ends here,
// even if a plugin left a handle open.
if (code !== 0 || (args[0] !== "serve" && args[0] !== "mcp")) process.exit(code);
