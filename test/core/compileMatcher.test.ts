import { expect } from "chai";
import { compileMatcher, matches } from "../../src/core/compileMatcher.js";
import { MATCH_WORK_LIMIT } from "../../src/regex/userRegex.js";
import { MAX_PROGRAM_SIZE } from "../../src/regex/toRe2.js";

/** Contract 2.2 and 8 ("Matcher written as in the seed's table"), on the compiled matchers themselves. */
describe("compileMatcher / matches", () => {
  const compiled = (source: string | undefined) => {
    const c = compileMatcher(source);
    return { ...c, test: (value: string | null) => matches(c.matcher, value) };
  };

  describe("match everything", () => {
    for (const source of [undefined, "", "   ", "*", " * ", "\t"]) {
      it(`${JSON.stringify(source)} matches every value, the empty one included, without a warning`, () => {
        const m = compiled(source);
        expect(m.matcher.kind).to.equal("all");
        expect(m.warnings).to.deep.equal([]);
        for (const v of ["Bash", "mcp__x__y", "", "anything at all"]) expect(m.test(v), v).to.equal(true);
      });
    }
  });

  describe("simple lists: exact names", () => {
    it("Write|Edit matches Write and Edit only, not NotebookEdit nor a prefix, suffix or other case", () => {
      const m = compiled("Write|Edit");
      expect(m.matcher.kind).to.equal("names");
      expect(m.warnings).to.deep.equal([]);
      expect(m.test("Write")).to.equal(true);
      expect(m.test("Edit")).to.equal(true);
      for (const v of ["NotebookEdit", "MultiEdit", "Edits", "Writ", "write", "edit", "Write|Edit", "", " Edit"]) {
        expect(m.test(v), v).to.equal(false);
      }
    });

    it("Write,Edit is the same list", () => {
      const m = compiled("Write,Edit");
      expect(m.test("Write")).to.equal(true);
      expect(m.test("Edit")).to.equal(true);
      expect(m.test("NotebookEdit")).to.equal(false);
      expect(m.test("Write,Edit")).to.equal(false);
    });

    it("trims the items: ' Write | Edit ,Bash ' is Write, Edit and Bash", () => {
      const m = compiled(" Write | Edit ,Bash ");
      expect(m.matcher).to.deep.equal({ kind: "names", names: new Set(["Write", "Edit", "Bash"]) });
      expect(m.test("Bash")).to.equal(true);
      expect(m.test(" Write ")).to.equal(false);
    });

    it("a single name is exact and case-sensitive: bash does not match Bash, Bash does not match BashOutput", () => {
      expect(compiled("bash").test("Bash")).to.equal(false);
      expect(compiled("Bash").test("Bash")).to.equal(true);
      expect(compiled("Bash").test("BashOutput")).to.equal(false);
    });

    it("names with digits, _ and - are still simple: mcp__github__create-issue2 is exact", () => {
      const m = compiled("mcp__github__create-issue2");
      expect(m.matcher.kind).to.equal("names");
      expect(m.test("mcp__github__create-issue2")).to.equal(true);
      expect(m.test("mcp__github__create-issue23")).to.equal(false);
    });

    it("a names matcher never matches a missing value (null)", () => {
      expect(compiled("Bash").test(null)).to.equal(false);
      expect(compiled("*").test(null)).to.equal(true);
    });
  });

  describe("regular expressions: unanchored, case-sensitive", () => {
    it("mcp__.* matches every MCP tool and nothing else", () => {
      const m = compiled("mcp__.*");
      expect(m.matcher.kind).to.equal("regex");
      expect(m.warnings).to.deep.equal([]);
      expect(m.test("mcp__github__x")).to.equal(true);
      expect(m.test("mcp__memory__create_entities")).to.equal(true);
      expect(m.test("Bash")).to.equal(false);
      expect(m.test("mcp_x")).to.equal(false);
    });

    it("is tested unanchored: Edit.? matches NotebookEdit; ^Edit$ anchors", () => {
      expect(compiled("Edit.?").test("NotebookEdit")).to.equal(true);
      expect(compiled(".*Edit").test("NotebookEdit")).to.equal(true);
      const anchored = compiled("^Edit$");
      expect(anchored.matcher.kind).to.equal("regex");
      expect(anchored.test("Edit")).to.equal(true);
      expect(anchored.test("NotebookEdit")).to.equal(false);
      expect(anchored.test("Edit2")).to.equal(false);
    });

    it("is case-sensitive: ba.h does not match Bash", () => {
      expect(compiled("ba.h").test("Bash")).to.equal(false);
      expect(compiled("Ba.h").test("Bash")).to.equal(true);
    });

    it("^$ matches only the empty value", () => {
      const m = compiled("^$");
      expect(m.test("")).to.equal(true);
      expect(m.test("permission")).to.equal(false);
      expect(m.test(null)).to.equal(false);
    });

    it("mcp__(github|gitlab)__.* is a normal regex, not refused", () => {
      const m = compiled("mcp__(github|gitlab)__.*");
      expect(m.matcher.kind).to.equal("regex");
      expect(m.warnings).to.deep.equal([]);
      expect(m.test("mcp__gitlab__merge")).to.equal(true);
      expect(m.test("mcp__slack__post")).to.equal(false);
    });

    it("tests the whole value: what follows the first 1,024 characters counts too", () => {
      const long = `${"a".repeat(1024)}TAIL`;
      expect(compiled("TAI.").test(long)).to.equal(true);
      expect(compiled("^a+$").test(long)).to.equal(false);
    });

    it("a value too long to test within the work bound counts as matched (the hook runs)", () => {
      const m = compiled("^Bash$");
      // About 10 instructions: a value of MATCH_WORK_LIMIT characters is past the bound.
      expect(m.test("x".repeat(MATCH_WORK_LIMIT))).to.equal(true);
      expect(m.test("x".repeat(1000))).to.equal(false);
    });
  });

  describe("the seed's Write\\|Edit", () => {
    it("is read as Write|Edit, with one warning saying so", () => {
      const m = compiled("Write\\|Edit");
      expect(m.matcher).to.deep.equal({ kind: "names", names: new Set(["Write", "Edit"]) });
      expect(m.warnings).to.have.length(1);
      expect(m.warnings[0]).to.include('"Write\\|Edit" read as "Write|Edit"');
      expect(m.test("Write")).to.equal(true);
      expect(m.test("Edit")).to.equal(true);
      expect(m.test("NotebookEdit")).to.equal(false);
    });

    it("works for longer lists too: Write\\|Edit\\|MultiEdit", () => {
      const m = compiled("Write\\|Edit\\|MultiEdit");
      expect(m.matcher).to.deep.equal({ kind: "names", names: new Set(["Write", "Edit", "MultiEdit"]) });
      expect(m.warnings).to.have.length(1);
    });

    it("inside a regex too: mcp__.*\\|Bash is the alternation mcp__.*|Bash, with the warning", () => {
      const m = compiled("mcp__.*\\|Bash");
      expect(m.matcher.kind).to.equal("regex");
      expect(m.warnings).to.have.length(1);
      expect(m.warnings[0]).to.include('read as "mcp__.*|Bash"');
      expect(m.test("Bash")).to.equal(true);
      expect(m.test("mcp__github__create_issue")).to.equal(true);
      expect(m.test("Write")).to.equal(false);
    });
  });

  describe("unusable patterns match nothing, with a warning", () => {
    for (const source of ["Bash(", "[", "*Bash", "a{2,1}"]) {
      it(`invalid regex ${JSON.stringify(source)}`, () => {
        const m = compiled(source);
        expect(m.matcher.kind).to.equal("never");
        expect(m.warnings).to.have.length(1);
        expect(m.warnings[0]).to.match(/^invalid regex .*this group matches nothing$/);
        for (const v of ["Bash", "", "[", "*Bash"]) expect(m.test(v), v).to.equal(false);
        expect(m.test(null)).to.equal(false);
      });
    }

    it("an invalid regex says which kind of refusal it is", () => {
      expect(compiled("Bash(").refusal?.kind).to.equal("invalid");
    });
  });

  describe("patterns that backtrack for minutes in JavaScript run in linear time", () => {
    for (const [source, hostile] of [
      ["(a+)+$", `${"a".repeat(40)}!`],
      ["(\\w*)*!", "a".repeat(5000)],
      ["(a|aa)+$", `${"a".repeat(60)}!`],
      ["((a+)b)+c", "ab".repeat(3000)],
      ["a*a*a*a*a*b", "a".repeat(5000)],
      // The redaction pattern, as a matcher: bounded repeats, nested.
      ["([^\\u0000]{0,16}){7}!", "a".repeat(2000)],
    ] as const) {
      it(`${source} is a regex, answers like JavaScript, and at once on a hostile value`, () => {
        const m = compiled(source);
        expect(m.matcher.kind).to.equal("regex");
        expect(m.warnings).to.deep.equal([]);
        const start = performance.now();
        expect(m.test(hostile)).to.equal(false);
        // A backtracking run on these values takes minutes; a coarse bound proves none ran.
        expect(performance.now() - start).to.be.below(2000);
        expect(m.test(`${hostile.slice(0, 20)}ab!c`), "still matches what it should").to.equal(new RegExp(source).test(`${hostile.slice(0, 20)}ab!c`));
      });
    }
  });

  describe("regexes the linear-time engine cannot run count as matched, with one warning of their kind", () => {
    for (const [source, kind] of [
      ["(a)\\1", "backreference"],
      ["(?<t>a)\\k<t>", "backreference"],
      ["Bash(?=x)", "lookaround"],
      ["(?<!mcp__)Bash", "lookaround"],
      ["a{1001}", "too-large"],
      ["(a{100}){20}", "too-large"],
      [`(${"x".repeat(MAX_PROGRAM_SIZE)})`, "too-large"],
      ["\\ud800", "unsupported"],
    ] as const) {
      it(`${source.slice(0, 30)}: ${kind}`, () => {
        const m = compiled(source);
        expect(m.matcher.kind).to.equal("undecided");
        expect(m.refusal?.kind).to.equal(kind);
        expect(m.warnings).to.have.length(1);
        expect(m.warnings[0]).to.match(/cannot run in linear time .*; this group runs for every value$/);
        for (const v of ["Bash", "", "anything", null]) expect(m.test(v), String(v)).to.equal(true);
      });
    }
  });

  describe("ordinary matchers are regexes, never refused", () => {
    for (const source of [
      "mcp__(github|gitlab)__.*",
      "mcp__.*",
      "^Edit$",
      "Bash|Write",
      "(Write|Edit)",
      "^(Write|Edit)$",
      "(ab)+",
      "[(a+)+]",
      "\\(a+\\)+",
      "a+b*c{2,3}",
      "(a){2}",
    ]) {
      it(source, () => {
        expect(compileMatcher(source).matcher.kind).to.be.oneOf(["regex", "names"]);
      });
    }
  });
});
