/**
 * Consent for egress providers (C1, C2, C4): named, revocable, persisted in a JSON
 * file. The file is re-read on every check, so a revocation made by another
 * process (a CLI, a settings page) takes effect at the next query.
 *
 * A corrupt file is never overwritten: every call fails with a
 * {@link ConsentStoreError} until a person fixes or removes it, and the gate fails
 * closed (nothing is sent) meanwhile.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { DataFlow } from "../wire/schemas.js";
import { ConsentStoreError, type ConsentSubject } from "./errors.js";

/** Decides whether query payloads may go to a provider. */
export interface ConsentGate {
  /** True iff consent is recorded for `subject`. May throw if the record cannot be read. */
  isGranted(subject: ConsentSubject): boolean;
}

/** One recorded consent. */
export interface ConsentRecord {
  /** The provider's name, as it announced itself. */
  readonly provider: string;
  /** The command line or URL consent applies to. */
  readonly target: string;
  /** What leaves the machine, in words, as shown when consent was given. */
  readonly what: string;
  /** The data flow the provider declared at the time. */
  readonly dataFlow?: DataFlow;
  /** ISO 8601 time of the grant. */
  readonly grantedAt: string;
}

/** Options of {@link ConsentStore}. */
export interface ConsentStoreOptions {
  /** The JSON file; created (with its folder) on the first grant, mode 0600. */
  path: string;
}

/** What leaves by default: the query, which carries the user's goal and workspace hints. */
export const QUERY_PAYLOAD_DESCRIPTION =
  "query payloads (goal, query_text, anchors, embedding) are sent to this provider and may leave this machine";

interface ConsentFile {
  version: 1;
  grants: ConsentRecord[];
}

const sameSubject = (record: ConsentRecord, subject: ConsentSubject) =>
  record.provider === subject.provider && record.target === subject.target;

/** A consent gate backed by a JSON file. */
export class ConsentStore implements ConsentGate {
  /** The file's path. */
  readonly path: string;

  constructor(options: ConsentStoreOptions) {
    this.path = options.path;
  }

  /** True iff consent is recorded for this provider name at this target. */
  isGranted(subject: ConsentSubject): boolean {
    return this.#read().grants.some((record) => sameSubject(record, subject));
  }

  /** Every recorded consent. */
  list(): ConsentRecord[] {
    return [...this.#read().grants];
  }

  /** Records consent for `subject` (replacing an earlier one) and persists it. */
  grant(subject: ConsentSubject, options: { what?: string } = {}): ConsentRecord {
    if (subject.provider.trim() === "" || subject.target.trim() === "") {
      throw new ConsentStoreError("consent must name a provider and a target");
    }
    const file = this.#read();
    const record: ConsentRecord = {
      provider: subject.provider,
      target: subject.target,
      what: options.what ?? QUERY_PAYLOAD_DESCRIPTION,
      ...(subject.dataFlow !== undefined ? { dataFlow: { ...subject.dataFlow } } : {}),
      grantedAt: new Date().toISOString(),
    };
    this.#write({ version: 1, grants: [...file.grants.filter((r) => !sameSubject(r, subject)), record] });
    return record;
  }

  /** Withdraws consent for `subject`; true if there was one. */
  revoke(subject: ConsentSubject): boolean {
    const file = this.#read();
    const kept = file.grants.filter((record) => !sameSubject(record, subject));
    if (kept.length === file.grants.length) return false;
    this.#write({ version: 1, grants: kept });
    return true;
  }

  #read(): ConsentFile {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, grants: [] };
      throw new ConsentStoreError(`cannot read the consent file ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConsentStoreError(
        `the consent file ${this.path} is not valid JSON (${(error as Error).message}); fix or remove it — ` +
          "until then every egress provider is refused",
        { cause: error },
      );
    }
    const grants = (value as { grants?: unknown } | null)?.grants;
    if (!Array.isArray(grants) || !grants.every(isRecord)) {
      throw new ConsentStoreError(
        `the consent file ${this.path} does not hold { "version": 1, "grants": [{ provider, target, what, grantedAt }] }`,
      );
    }
    return { version: 1, grants };
  }

  #write(file: ConsentFile): void {
    // Write a sibling and rename it over the file: a crash mid-write never leaves half a file.
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new ConsentStoreError(`cannot write the consent file ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

function isRecord(value: unknown): value is ConsentRecord {
  const record = value as Partial<ConsentRecord> | null;
  return (
    typeof record === "object" &&
    record !== null &&
    typeof record.provider === "string" &&
    typeof record.target === "string" &&
    typeof record.what === "string" &&
    typeof record.grantedAt === "string"
  );
}

/** A gate that grants nothing: the default, so an egress provider is refused unless a gate says otherwise. */
export const NO_CONSENT: ConsentGate = { isGranted: () => false };
