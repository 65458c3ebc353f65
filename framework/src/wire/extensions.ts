/**
 * This project's extension of ocp/1.0-draft: the tokenizer a session's `token_cost`s
 * are counted in, negotiated at the handshake (docs/protocol.md, docs/tokens.md).
 *
 * - The host asks by adding `tokenizers` to its `handshake`: the names it can budget
 *   in, most preferred first (`[]` asks only what the provider offers).
 * - A provider that reads it answers with two fields on its `handshake_ack`:
 *   `tokenizer`, the one this session counts in (the first of the host's it offers,
 *   else its default), and `tokenizers`, every one it offers.
 * - Without the request nothing changes: the ack is the protocol's own, byte for byte,
 *   and costs are in the provider's default tokenizer. A provider that does not know the
 *   extension ignores the field (tolerant reader) and acks without the two fields, which
 *   tells the host its costs are in the provider's default.
 *
 * The reference schema forbids fields beyond the protocol's, so the strict writer drops
 * them; an envelope carries an extension's fields through it only when marked with
 * {@link withExtension} (which only a session answering a request, or a host making
 * one, does), and the fields are validated by the extension's own schema.
 */
import { z } from "zod";

/** The most tokenizer names a request or an offer may list; more is not a preference but noise. */
const MAX_NAMES = 64;
const Name = z.string().min(1).max(64);

/** The fields each extension may add to an envelope, by extension name. */
const EXTENSION_SCHEMAS = {
  /** On a `handshake`: the host's tokenizers, most preferred first. */
  "tokenizers-request": z.object({ tokenizers: z.array(Name).max(MAX_NAMES) }).strict(),
  /** On a `handshake_ack`: the session's tokenizer and every one offered. */
  "tokenizers-offer": z.object({ tokenizer: Name, tokenizers: z.array(Name).min(1).max(MAX_NAMES) }).strict(),
} as const;

/** The name of an extension whose fields an envelope may carry. */
export type ExtensionName = keyof typeof EXTENSION_SCHEMAS;

/** The provider's answer to a tokenizer request. */
export interface TokenizerOffer {
  /** The tokenizer this session's costs are counted in. */
  readonly tokenizer: string;
  /** Every tokenizer the provider offers. */
  readonly tokenizers: readonly string[];
}

const EXTENSION: unique symbol = Symbol("ocp-provider.extension");

/**
 * Adds an extension's fields to `envelope` and marks it so the strict writer keeps them.
 * Throws if the fields break the extension's schema: always a bug on our side.
 */
export function withExtension<T extends object>(
  envelope: T,
  extension: ExtensionName,
  fields: Record<string, unknown>,
): T {
  const parsed = EXTENSION_SCHEMAS[extension].parse(fields);
  Object.assign(envelope, parsed);
  Object.defineProperty(envelope, EXTENSION, { value: extension });
  return envelope;
}

/** The extension fields `envelope` was marked to carry (validated again), or undefined when unmarked. */
export function extensionFields(envelope: object): Record<string, unknown> | undefined {
  const extension = (envelope as { [EXTENSION]?: ExtensionName })[EXTENSION];
  if (extension === undefined) return undefined;
  const schema = EXTENSION_SCHEMAS[extension];
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) picked[key] = (envelope as Record<string, unknown>)[key];
  return schema.parse(picked);
}

/**
 * The host's tokenizer request in a handshake as sent, or undefined when it made none
 * (the field absent or `null`). Read tolerantly: an entry that is not a non-empty string is
 * skipped, and a field that is not a list reads as a request naming none.
 */
export function readTokenizerRequest(handshake: unknown): string[] | undefined {
  if (typeof handshake !== "object" || handshake === null) return undefined;
  const requested = (handshake as { tokenizers?: unknown }).tokenizers;
  if (requested === undefined || requested === null) return undefined;
  if (!Array.isArray(requested)) return [];
  return requested
    .slice(0, MAX_NAMES)
    .filter((name): name is string => typeof name === "string" && name.length > 0 && name.length <= 64);
}

/** The provider's tokenizer offer in a `handshake_ack` as received, or undefined when it has none (or a malformed one). */
export function readTokenizerOffer(ack: unknown): TokenizerOffer | undefined {
  if (typeof ack !== "object" || ack === null) return undefined;
  const { tokenizer, tokenizers } = ack as { tokenizer?: unknown; tokenizers?: unknown };
  const parsed = EXTENSION_SCHEMAS["tokenizers-offer"].safeParse({ tokenizer, tokenizers });
  return parsed.success ? parsed.data : undefined;
}
