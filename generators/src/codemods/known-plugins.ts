/**
 * The plugins `create-ocp-provider add plugin` knows, apart from the codemod that wires
 * them: `create-ocp-provider --help` and a plain create name them, and importing the
 * codemod (ts-morph, TypeScript) for that cost every run about a second of start-up.
 */

import { referencePlugins } from "../create/reference-plugins.js";

/** How a provider calls a plugin `addPlugin` knows. */
export interface KnownPluginSpec {
  /** The package it comes from. */
  readonly package: string;
  /** The factory's exported name. */
  readonly exportName: string;
  /** The factory's argument as source, quoted with `q`. */
  readonly args: (q: string) => string;
  /** What to do next, printed once it is wired. */
  readonly hint: string;
}

/**
 * The plugin packages `addPlugin` knows, by name, in menu order: every reference
 * plugin's `"ocp"` declaration (see reference-plugins.ts).
 */
export const KNOWN_PLUGINS: Readonly<Record<string, KnownPluginSpec>> = Object.fromEntries(
  referencePlugins().map((declared) => [
    declared.name,
    {
      package: declared.package,
      exportName: declared.plugin.export,
      args: (q: string) => declared.plugin.args.replaceAll('"', q),
      hint: declared.plugin.hint,
    },
  ]),
);
