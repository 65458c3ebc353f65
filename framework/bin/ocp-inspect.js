#!/usr/bin/env node
// `ocp-inspect`: the conformance inspector, same syntax as `ocp inspect`; compiled to dist/ by `npm run build`.
import { inspectMain } from "../dist/cli/inspect.js";

process.exit(await inspectMain(process.argv.slice(2), "ocp-inspect"));
