/**
 * How the `ocp-facts` command shows facts to a person. (`--json` prints the
 * API's objects instead.) Stored text may come from anyone's import file: every field
 * is shown through `escapeLine`, so none can move the cursor, recolour the terminal or
 * pass for another fact's lines; a statement's own line breaks stay, each new line indented.
 */

import { escapeLine } from "ocp-provider";
import type { ImportSummary } from "./import-file.js";
import type { Erasure, Fact, WriteResult } from "./model.js";
import type { FactHit } from "./store.js";
import { formatDay } from "./time.js";

const day = (time: string) => formatDay(Date.parse(time));

/** `2020-03-01 → 2024-02-15`, `2020-03-01 → open`, or `withdrawn (holds at no time)`. */
export function validity(fact: Fact): string {
  if (fact.validTo === fact.validFrom) return "withdrawn (holds at no time)";
  return `${day(fact.validFrom)} → ${fact.validTo === null ? "open" : day(fact.validTo)}`;
}

/** One version, over a few indented lines. */
export function renderFact(fact: Fact, extra = ""): string {
  const known = `${fact.recordedAt} → ${fact.supersededAt ?? "now"}`;
  const lines = [
    `fact ${fact.id} v${fact.version}  ${fact.subject} · ${fact.predicate}  [${fact.op}]${extra}`,
    ...fact.statement.split(/\r?\n/).map((line) => `  ${line}`),
    `  valid ${validity(fact)}   known ${known}`,
  ];
  const origin = [
    fact.source === null ? "" : `source ${fact.source}`,
    fact.method === null ? "" : `method ${fact.method}`,
    fact.author === null ? "" : `author ${fact.author}`,
  ].filter((part) => part !== "");
  if (origin.length > 0) lines.push(`  ${origin.join("  ")}`);
  // An assertion's actor is its author, already shown; a later version's actor is who changed it.
  const actor = fact.actor !== null && fact.actor !== fact.author ? `(by ${fact.actor})` : "";
  if (fact.note !== null || actor !== "") lines.push(`  ${[fact.note, actor].filter(Boolean).join(" ")}`);
  return `${lines.map(escapeLine).join("\n")}\n`;
}

/** What a write did: the new version, and the facts it superseded. */
export function renderWrite(verb: string, result: WriteResult): string {
  const { fact } = result;
  let text = `${verb} fact ${fact.id}\n${renderFact(fact)}`;
  for (const other of result.superseded) {
    text += `superseded fact ${other.id}: now valid ${validity(other)}\n`;
  }
  return text;
}

/** Query results, best first. */
export function renderHits(hits: readonly FactHit[]): string {
  if (hits.length === 0) return "no facts match\n";
  return hits.map(({ fact, relevance }) => renderFact(fact, `  score ${relevance.toFixed(2)}`)).join("");
}

/** A listing or a history. */
export function renderFacts(facts: readonly Fact[], empty: string): string {
  return facts.length === 0 ? `${empty}\n` : facts.map((fact) => renderFact(fact)).join("");
}

/** An erasure log entry. */
export function renderErasure(erasure: Erasure): string {
  const ids = erasure.ids.length === 1 ? `fact ${erasure.ids[0]}` : `facts ${erasure.ids.join(", ")}`;
  const by = erasure.actor === null ? "" : ` by ${erasure.actor}`;
  return `${escapeLine(`${erasure.at}  erased ${ids} (${erasure.versions} version${erasure.versions === 1 ? "" : "s"})${by}: ${erasure.reason}`)}\n`;
}

/** The end of an import. */
export function renderImport(summary: ImportSummary): string {
  return (
    `imported ${summary.records} record${summary.records === 1 ? "" : "s"} in ${summary.batches} ` +
    `batch${summary.batches === 1 ? "" : "es"}: ${summary.inserted} new, ${summary.skipped} already present` +
    `${summary.superseded > 0 ? `, ${summary.superseded} superseded` : ""}\n`
  );
}
