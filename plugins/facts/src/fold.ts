/**
 * Accent folding, the way SQLite's FTS5 (`unicode61 remove_diacritics 2`) folds:
 * lower case, letters decomposed, combining marks dropped ("Zoë Müller" → "zoe muller").
 *
 * The search code uses it to place terms in text; the PostgreSQL backend indexes and
 * queries folded text with it, so both backends find the same facts. PostgreSQL's own
 * way, the `unaccent` extension, may not be allowed on a managed server, and
 * `translate()` over a table of letters in a generated column made ingest 4× slower.
 */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  // Most text is ASCII: nothing to decompose.
  return /^[\x20-\x7e]*$/.test(lower) ? lower : lower.normalize("NFD").replace(/\p{M}/gu, "");
}
