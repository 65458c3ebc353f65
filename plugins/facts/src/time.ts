/**
 * Times: RFC 3339 in, RFC 3339 UTC out, integer milliseconds inside.
 *
 * Every time is stored as whole milliseconds since the Unix epoch (UTC), so
 * comparisons in SQL are exact integer comparisons, identical on SQLite and
 * PostgreSQL. Milliseconds (not microseconds) because every such number is an
 * exact JavaScript number for all years 0000–9999, and `Date` agrees.
 *
 * Accepted: `2024-05-01T09:30:00Z`, any UTC offset (`+02:00`, converted), a
 * fraction of any length (digits past the millisecond are dropped: the time is
 * floored, never rounded into the next millisecond), lower-case `t`/`z`, and a
 * bare date `2024-05-01` (midnight UTC). Refused, with a message naming the
 * problem: a date-time without an offset, impossible dates (`2023-02-29`), leap
 * seconds, years outside 0000–9999, anything else.
 */
import { escapeLine } from "ocp-provider";
import { FACT_ERRORS, FactError } from "./errors.js";

/** A time as the API accepts it: an RFC 3339 string or a `Date`. */
export type TimeInput = string | Date;

/** The smallest and largest representable times: 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z. */
export const MIN_TIME = -62_167_219_200_000;
export const MAX_TIME = 253_402_300_799_999;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})?$/;

/** The first `max` code points of `text` (never half a surrogate pair), and `…` when there were more. */
function shorten(text: string, max: number): string {
  const points = [...text.slice(0, 2 * max + 1)];
  return points.length > max ? `${points.slice(0, max).join("")}…` : points.join("");
}

function fail(what: string, value: unknown, why: string): FactError {
  // Shown escaped: the value may come from a host's query or an imported file, and the message may reach a terminal.
  const shown = escapeLine(typeof value === "string" ? `'${shorten(value, 60)}'` : String(value));
  return new FactError(FACT_ERRORS.BAD_TIME, `${what}: ${shown} is not a usable time: ${why}`);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Milliseconds since the epoch of a UTC calendar time; handles years 0–99, which `Date.UTC` maps to 19xx. */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

/**
 * Parses a time into UTC milliseconds. `what` names the field in the error
 * ("valid_from", "--as-of"), so a person knows which input to fix.
 */
export function parseTime(value: TimeInput, what: string): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw fail(what, "Invalid Date", "the Date is invalid");
    if (ms < MIN_TIME || ms > MAX_TIME) throw fail(what, value.toISOString(), "outside the years 0000–9999");
    return ms;
  }
  if (typeof value !== "string") throw fail(what, value, "expected an RFC 3339 string such as 2024-05-01T09:30:00Z");
  const dateOnly = DATE.exec(value);
  const match = dateOnly ?? DATE_TIME.exec(value);
  if (match === null) throw fail(what, value, "expected RFC 3339, such as 2024-05-01T09:30:00Z or 2024-05-01");
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", offset] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12) throw fail(what, value, `month ${mo} does not exist`);
  if (day < 1 || day > daysIn(year, month)) throw fail(what, value, `${y}-${mo} has no day ${d}`);
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (hour > 23) throw fail(what, value, `hour ${h} does not exist`);
  if (minute > 59) throw fail(what, value, `minute ${mi} does not exist`);
  if (second === 60) throw fail(what, value, "leap seconds are not supported");
  if (second > 59) throw fail(what, value, `second ${s} does not exist`);
  if (dateOnly === null && offset === undefined) {
    throw fail(what, value, "a date-time needs a UTC offset, such as Z or +02:00");
  }
  let offsetMs = 0;
  if (offset !== undefined && offset.toUpperCase() !== "Z") {
    const [oh, om] = [Number(offset.slice(1, 3)), Number(offset.slice(4, 6))];
    if (oh > 23 || om > 59) throw fail(what, value, `offset ${offset} does not exist`);
    offsetMs = (offset[0] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const ms = Number(fraction.slice(0, 3).padEnd(3, "0"));
  const result = utcMillis(year, month, day, hour, minute, second, ms) - offsetMs;
  if (result < MIN_TIME || result > MAX_TIME) throw fail(what, value, "outside the years 0000–9999 in UTC");
  return result;
}

/** Parses an optional time: `undefined` stays undefined. */
export function parseOptionalTime(value: TimeInput | undefined, what: string): number | undefined {
  return value === undefined ? undefined : parseTime(value, what);
}

/** RFC 3339 UTC: `2024-05-01T09:30:00Z`, with `.mmm` only when the milliseconds are not zero. */
export function formatTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** Like {@link formatTime}, but a midnight-UTC time is shown as its date alone (`2024-05-01`): for citations. */
export function formatDay(ms: number): string {
  const text = formatTime(ms);
  return text.endsWith("T00:00:00Z") ? text.slice(0, 10) : text;
}
