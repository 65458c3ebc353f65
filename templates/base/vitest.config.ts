import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The conformance suite starts the real provider process: loading TypeScript and the
    // tokenizer tables takes a few seconds on a cold start.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
