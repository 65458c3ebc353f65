/** deepseek_v3: exact counts against its package's own encode, its upper bound, and the packer's budget in it. */
import { describeFamily } from "../test-support/family-tests.js";

describeFamily("deepseek_v3");
