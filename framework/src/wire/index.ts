/**
 * `ocp-provider/wire`: the ocp/1.0-draft wire contract — schemas, types, the
 * tolerant reader, the strict writer and the version-family rule.
 */
export * from "./codec.js";
export * from "./json-schema.js";
export * from "./schemas.js";
export * from "./version.js";
