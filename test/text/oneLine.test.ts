import { expect } from "chai";
import { MAX_QUOTED_LENGTH, oneLineText, quoteValue } from "../../src/text/oneLine.js";
import { replaceLiteral } from "../../src/text/replaceLiteral.js";

/** What a message quotes from a user's or an agent's text: one line, and short. */
describe("text: oneLineText and quoteValue, quoted input in one-line messages", () => {
  it("leaves plain text as it is", () => {
    expect(oneLineText("rm -rf build")).to.equal("rm -rf build");
    expect(oneLineText("")).to.equal("");
  });

  it("escapes line breaks, tabs and other control characters so that a message stays one line", () => {
    expect(oneLineText("a\nb\rc\td")).to.equal("a\\nb\\rc\\td");
    expect(oneLineText("nul\u0000 esc\u001b del\u007f")).to.equal("nul\\u0000 esc\\u001b del\\u007f");
    // The JavaScript line and paragraph separators end a line in some terminals and editors.
    expect(oneLineText("x\u2028y\u2029z")).to.equal("x\\u2028y\\u2029z");
    // Every control character, however many, not only the first.
    expect(oneLineText("\n\n")).to.equal("\\n\\n");
  });

  it("keeps characters just outside the control ranges", () => {
    expect(oneLineText(" ~\u0080é")).to.equal(" ~\u0080é");
  });

  it(`cuts text longer than ${MAX_QUOTED_LENGTH} characters and says how long it was`, () => {
    expect(MAX_QUOTED_LENGTH).to.equal(120);
    const exact = "x".repeat(MAX_QUOTED_LENGTH);
    expect(oneLineText(exact)).to.equal(exact);
    expect(oneLineText(`${exact}y`)).to.equal(`${exact}… (121 characters)`);
    expect(oneLineText("abcdef", 3)).to.equal("abc… (6 characters)");
    expect(oneLineText("abc", 3)).to.equal("abc");
  });

  it("counts the cut on the escaped text, the length given on the original", () => {
    // Four newlines are eight characters once escaped.
    expect(oneLineText("\n\n\n\n", 6)).to.equal("\\n\\n\\n… (4 characters)");
  });

  it("quotes a string as JSON, other scalars as they print, containers by their kind", () => {
    expect(quoteValue('a"b\nc')).to.equal('"a\\"b\\nc"');
    expect(quoteValue(42)).to.equal("42");
    expect(quoteValue(true)).to.equal("true");
    expect(quoteValue(null)).to.equal("null");
    expect(quoteValue(undefined)).to.equal("undefined");
    expect(quoteValue([1, 2])).to.equal("an array");
    expect(quoteValue({ a: 1 })).to.equal("an object");
  });

  it("cuts a long quoted value, closing the quote it opened", () => {
    expect(quoteValue("abcdef", 4)).to.equal('"abc…" (8 characters)');
    expect(quoteValue("ab", 4)).to.equal('"ab"');
    expect(quoteValue("y".repeat(200))).to.equal(`"${"y".repeat(119)}…" (202 characters)`);
  });
});

describe("text: replaceLiteral, a replacement with no patterns", () => {
  it("replaces every occurrence, and reads $ patterns in the replacement as plain text", () => {
    expect(replaceLiteral("cd $DIR && ls $DIR", "$DIR", "/a/$&/b$1")).to.equal("cd /a/$&/b$1 && ls /a/$&/b$1");
    expect(replaceLiteral("no match", "zz", "y")).to.equal("no match");
  });
});
