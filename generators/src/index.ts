/**
 * create-ocp-provider: scaffold an Open Context Protocol provider (`npm create
 * ocp-provider`), and codemods for existing ones. The command line is a thin layer
 * over these functions.
 */

export { main } from "./cli/main.js";
export { type AddPluginResult, addDependency, addPlugin, type KnownPlugin } from "./codemods/add-plugin.js";
export { type GeneratedPlugin, type GeneratePluginOptions, generatePlugin } from "./codemods/generate-plugin.js";
export { KNOWN_PLUGINS, type KnownPluginSpec } from "./codemods/known-plugins.js";
export { type PluginWiring, type WireResult, wirePlugin } from "./codemods/wire-plugin.js";
export {
  type CreatedProject,
  type CreateOptions,
  createProject,
  type PackageManager,
} from "./create/create-project.js";
export { type PluginDeclaration, readPluginFolders, referencePlugins } from "./create/reference-plugins.js";
export {
  INDEX_KINDS,
  type IndexKind,
  TEMPLATE_NAMES,
  TEMPLATES,
  type TemplateName,
  type TemplateSpec,
  TRANSPORTS,
  type Transport,
  templateSpec,
} from "./create/templates.js";
export { CREATE_ERROR_CODES, CreateError, type CreateErrorCode } from "./errors.js";
