/** Types of template-layers.js (plain JavaScript, for Node's resolution hooks). */

/**
 * The file in the group's shared layer that the relative import `specifier` of the
 * template file `importer` (an absolute path) loads once the layers are copied together;
 * `undefined` when the importer's own layer has the file, or the import is not such an import.
 */
export function sharedLayerSource(specifier: string, importer: string): string | undefined;
