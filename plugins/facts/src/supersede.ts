/**
 * Supersession for functional predicates: a subject has at most one value of a
 * functional predicate at any valid time (one employer, one address).
 *
 * When a fact arrives for a functional subject + predicate, the facts already
 * known for it are reconciled in valid-time order — the later start wins from
 * its start:
 *
 * - a fact that started earlier and still holds at the newcomer's valid_from is
 *   closed there (Acme from 2020, then Globex from 2023: Acme ends 2023);
 * - a fact that starts later ends the newcomer where it starts (a back-filled
 *   Initech from 2018 ends in 2020, where Acme begins), so a late-recorded
 *   earlier fact never erases a later one;
 * - a fact with the same valid_from is replaced: it is withdrawn (its interval
 *   becomes empty), since the newcomer was recorded later.
 *
 * Intervals only ever shrink, and a fact is never split in two. This module is
 * pure: arithmetic on intervals, and the new version each close becomes
 * ({@link supersedingVersion}); the store and the importer write them.
 */
import type { Row } from "./backend.js";
import { nextVersion } from "./model.js";

/** A current fact's valid interval, in milliseconds; `validTo` null is open-ended. */
export interface Span {
  readonly id: number;
  readonly validFrom: number;
  readonly validTo: number | null;
}

/** What supersession changes. */
export interface SupersessionPlan {
  /** Facts to close: each gets a new version with this valid_to (equal to its valid_from when withdrawn). */
  readonly close: readonly { readonly id: number; readonly validTo: number }[];
  /** The newcomer's valid_to after reconciliation. */
  readonly validTo: number | null;
}

const end = (validTo: number | null) => validTo ?? Number.POSITIVE_INFINITY;

/**
 * Plans how a newcomer `[validFrom, validTo)` supersedes the current facts
 * `others` of the same subject and functional predicate (the newcomer's own id
 * excluded). Facts that hold at no time are ignored.
 */
export function planSupersession(
  incoming: { readonly validFrom: number; readonly validTo: number | null },
  others: readonly Span[],
): SupersessionPlan {
  const close: { id: number; validTo: number }[] = [];
  let validTo = incoming.validTo;
  for (const other of others) {
    if (end(other.validTo) <= other.validFrom) continue; // withdrawn: holds at no time
    if (other.validFrom < incoming.validFrom) {
      if (end(other.validTo) > incoming.validFrom) close.push({ id: other.id, validTo: incoming.validFrom });
    } else if (other.validFrom === incoming.validFrom) {
      close.push({ id: other.id, validTo: other.validFrom });
    } else if (other.validFrom < end(validTo)) {
      validTo = other.validFrom;
    }
  }
  close.sort((a, b) => a.id - b.id);
  return { close, validTo };
}

/** The new version that closes `other` at `validTo`, recorded at `now`, because `by` superseded it. */
export function supersedingVersion(other: Row, by: Row, validTo: number, now: number): Row {
  return {
    ...other,
    version: nextVersion(other),
    validTo,
    recordedAt: now,
    supersededAt: null,
    op: "supersede",
    note: `superseded by fact ${by.id}`,
    actor: by.actor,
  };
}
