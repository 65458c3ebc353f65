import { describe, expect, it } from "vitest";
import { editDistance, humps, matchable, matchName, matchSymbol, nameTerm, Tier } from "./match.js";

const tierOf = (term: string, name: string) => matchName(nameTerm(term), matchable(name)).tier;

function symbol(qualified: string, separator = ".") {
  const parts = qualified.split(separator);
  const name = parts[parts.length - 1] as string;
  const container = parts.length > 1 ? parts.slice(0, -1).join(".") : undefined;
  return {
    ...matchable(name),
    qualifiedNormal: parts.join("."),
    qualifiedKey: parts.join(".").toLowerCase(),
    containerKey: container?.toLowerCase(),
  };
}

describe("matchName tiers", () => {
  it("ranks exact > case-insensitive > prefix > camel-hump/subword > fuzzy", () => {
    expect(tierOf("parseConfig", "parseConfig")).toBe(Tier.Exact);
    expect(tierOf("parseconfig", "parseConfig")).toBe(Tier.CaseInsensitive);
    expect(tierOf("parseCon", "parseConfig")).toBe(Tier.Prefix);
    expect(tierOf("pC", "parseConfig")).toBe(Tier.Subword);
    expect(tierOf("config", "parseConfig")).toBe(Tier.Subword);
    expect(tierOf("gsf", "getSourceFile")).toBe(Tier.Subword);
    expect(tierOf("sourceFile", "getSourceFile")).toBe(Tier.Subword);
    expect(tierOf("counted", "countTokens")).toBe(Tier.Subword);
    expect(tierOf("pcnfg", "parseConfig")).toBe(Tier.Fuzzy);
    expect(tierOf("parseConfgi", "parseConfig")).toBe(Tier.Fuzzy);
    expect(tierOf("retyr", "retry")).toBe(Tier.Fuzzy);
    expect(tierOf("zzz", "parseConfig")).toBe(Tier.None);
    expect(tierOf("cfg", "parseConfig")).toBe(Tier.None);
  });

  it("grades prefixes by how much of the name they cover", () => {
    const short = matchName(nameTerm("pa"), matchable("parseConfig"));
    const long = matchName(nameTerm("parseCo"), matchable("parseConfig"));
    expect(long.quality).toBeGreaterThan(short.quality);
  });

  it("reads camel humps as prefixes of consecutive words", () => {
    expect(humps("gsf", ["get", "source", "file"])).toBe(1);
    expect(humps("sourcef", ["get", "source", "file"])).toBeCloseTo(2 / 3);
    expect(humps("gf", ["get", "source", "file"])).toBe(0);
  });

  it("counts edits with transpositions and stops past the limit", () => {
    expect(editDistance("retry", "retyr", 2)).toBe(1);
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("abcdef", "uvwxyz", 1)).toBe(2);
  });
});

describe("matchSymbol with qualified terms", () => {
  it("matches Config.retry exactly, also under a namespace, and by Rust's :: too", () => {
    expect(matchSymbol(nameTerm("Config.retry"), symbol("Config.retry")).tier).toBe(Tier.Exact);
    expect(matchSymbol(nameTerm("Config::retry"), symbol("Config.retry")).tier).toBe(Tier.Exact);
    expect(matchSymbol(nameTerm("Config.retry"), symbol("app.Config.retry")).tier).toBe(Tier.Exact);
    expect(matchSymbol(nameTerm("config.retry"), symbol("Config.retry")).tier).toBe(Tier.CaseInsensitive);
  });

  it("weighs the right member of another container down", () => {
    expect(matchSymbol(nameTerm("Config.ret"), symbol("Config.retry")).tier).toBe(Tier.Prefix);
    expect(matchSymbol(nameTerm("Conf.retry"), symbol("Config.retry")).tier).toBe(Tier.Prefix);
    expect(matchSymbol(nameTerm("Options.retry"), symbol("Config.retry")).tier).toBe(Tier.Subword);
    expect(matchSymbol(nameTerm("Config.retry"), symbol("retry")).tier).toBe(Tier.Subword);
    expect(matchSymbol(nameTerm("Config.zzz"), symbol("Config.retry")).tier).toBe(Tier.None);
  });
});
