/**
 * The packer's budget holds in every registered tokenizer: the core's here, each open
 * family's in its own file with its vocabulary (tokens/family-*.test.ts, which
 * tokens/registry.test.ts requires of every family).
 */
import { describe, it } from "vitest";
import { checkPackerBudget } from "../test-support/tokenizer-properties.js";
import { createTokenCounter } from "../tokens/counter.js";
import { TOKENIZERS, tokenizerSpec } from "../tokens/registry.js";

const CORE = TOKENIZERS.filter((name) => tokenizerSpec(name).package === undefined);

describe.each(CORE)("packFrames in %s", (tokenizer) => {
  it("never exceeds maxTokens, every cost exact (recounted uncached)", () => {
    const fresh = createTokenCounter({ tokenizer, cacheSize: 0 });
    checkPackerBudget(createTokenCounter({ tokenizer }), fresh.count, 300, ["<|endoftext|>", "<|fim_prefix|>"]);
  });
});
