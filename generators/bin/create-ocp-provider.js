#!/usr/bin/env node
// `npm create ocp-provider`; its code is compiled to dist/ by `npm run build`.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
