import { expect } from "chai";
import { QhooksError } from "../../src/errors.js";
import { parseTimeArg } from "../../src/cli/timeArg.js";

const now = new Date("2026-03-10T12:00:00.000Z");
const at = (value: string, utc = false) => parseTimeArg("--since", value, { now, utc }).toISOString();

describe("cli: --since and --until", () => {
  it("spans back from now, short and spelled out", () => {
    expect(at("30m")).to.equal("2026-03-10T11:30:00.000Z");
    expect(at("2h")).to.equal("2026-03-10T10:00:00.000Z");
    expect(at("1.5h")).to.equal("2026-03-10T10:30:00.000Z");
    expect(at("3d")).to.equal("2026-03-07T12:00:00.000Z");
    expect(at("2w")).to.equal("2026-02-24T12:00:00.000Z");
    expect(at("90s")).to.equal("2026-03-10T11:58:30.000Z");
    expect(at("2 hours ago")).to.equal(at("2h"));
    expect(at("1 day ago")).to.equal(at("1d"));
    expect(at("45 minutes")).to.equal(at("45m"));
    expect(at("  3 Days Ago ")).to.equal(at("3d"));
    expect(at("now")).to.equal(now.toISOString());
  });

  it("today and yesterday: midnight in the local zone, or in UTC with --utc", () => {
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    expect(at("today")).to.equal(midnight.toISOString());
    const dayBefore = new Date(midnight);
    dayBefore.setDate(dayBefore.getDate() - 1);
    expect(at("yesterday")).to.equal(dayBefore.toISOString());
    expect(at("yesterday", true)).to.equal("2026-03-09T00:00:00.000Z");
  });

  it("ISO dates and times with a zone mean that moment, whatever the local zone", () => {
    expect(at("2026-01-13T09:00:00Z")).to.equal("2026-01-13T09:00:00.000Z");
    expect(at("2026-01-13T09:00+08:00")).to.equal("2026-01-13T01:00:00.000Z");
    expect(at("2026-01-13 09:00:05 +08:00")).to.equal("2026-01-13T01:00:05.000Z");
    expect(at("2026-01-13T09:00:05.250-0330")).to.equal("2026-01-13T12:30:05.250Z");
    expect(at("2026-01-13 09:00 UTC")).to.equal("2026-01-13T09:00:00.000Z");
  });

  it("a time without a zone is local (as tables show times), or UTC with --utc", () => {
    expect(at("2026-01-13 09:00")).to.equal(new Date(2026, 0, 13, 9, 0).toISOString());
    expect(at("2026-01-13T09:00:05")).to.equal(new Date(2026, 0, 13, 9, 0, 5).toISOString());
    expect(at("2026-01-13")).to.equal(new Date(2026, 0, 13).toISOString());
    expect(at("2026-01-13", true)).to.equal("2026-01-13T00:00:00.000Z");
    expect(at("2026-01-13 09:00", true)).to.equal("2026-01-13T09:00:00.000Z");
    // A time copied from a table, as the table prints it.
    expect(at("2026-01-13 09:00:05")).to.equal(new Date(2026, 0, 13, 9, 0, 5).toISOString());
  });

  it("everything else is a usage error naming the flag and the value, never an internal error", () => {
    const cases = [
      "13/01/2026",
      "the day before",
      "2x",
      "",
      "2026-02-30",
      "2026-13-01",
      "2026-01-13T25:00",
      "2026-01-13T09:00+25:00",
      "-3d",
      "soon",
      "99999999999d",
      "9999999999999999d",
      "1e9d",
    ];
    for (const value of cases) {
      let thrown: unknown;
      try {
        parseTimeArg("--until", value, { now });
      } catch (e) {
        thrown = e;
      }
      expect(thrown, value).to.be.instanceOf(QhooksError);
      const e = thrown as QhooksError;
      expect(e.code, value).to.equal("usage");
      expect(e.message, value)
        .to.match(/^--until /)
        .and.include(JSON.stringify(value));
      expect(e.message.split("\n"), value).to.have.length(1);
    }
  });

  it("times whose ISO form would not have a four-digit year are refused (the log compares times as ISO text)", () => {
    expect(() => parseTimeArg("--since", "99999999999d", { now })).to.throw(/outside the years 0000 to 9999/);
    expect(at("0001-01-01T00:00Z")).to.equal("0001-01-01T00:00:00.000Z");
    expect(at("9999-12-31", true)).to.equal("9999-12-31T00:00:00.000Z");
    expect(at("2024-02-29", true)).to.equal("2024-02-29T00:00:00.000Z");
    expect(() => parseTimeArg("--since", "2023-02-29", { now })).to.throw(/no such date/);
  });
});
