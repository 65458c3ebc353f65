/**
 * `ocp query --as-of T`: what the command accepts as a time, checked before the
 * query is sent, so `--as-of yesterday` is refused naming the option rather than
 * passed on for a plugin to ignore.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Why `value` is not an RFC 3339 date-time (with its offset, `Z` or `±hh:mm`) or a
 * `YYYY-MM-DD` date that exists on the calendar; undefined when it is one.
 */
export function asOfProblem(value: string): string | undefined {
  const match = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (match === null) {
    return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?(\.\d+)?$/.test(value)
      ? "a date-time needs its offset: Z or ±hh:mm"
      : "expected RFC 3339 (2024-05-01T09:30:00Z) or a date (2024-05-01)";
  }
  const [, y, mo, d, h = "0", mi = "0", s = "0", oh = "0", om = "0"] = match.map((part) => part ?? "0");
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (month < 1 || month > 12) return `there is no month ${mo}`;
  if (day < 1 || day > daysIn(year, month)) return `${y}-${mo} has no day ${d}`;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return "hours go to 23, minutes and seconds to 59";
  if (Number(oh) > 23 || Number(om) > 59) return "the offset's hours go to 23, its minutes to 59";
  return undefined;
}
