import { expect } from "chai";
import { MAX_MATCH_VALUE_LENGTH, compileMatcher, isCatastrophic, matches } from "../../src/settings/compileMatcher.js";

/** Contract 2.2 and 8 ("Matcher written as in the seed's table"), on the compiled matchers themselves. */
describe("compileMatcher / matches / isCatastrophic", () => {
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

    it(`tests a regex against the first ${MAX_MATCH_VALUE_LENGTH} characters of the value only`, () => {
      const long = `${"a".repeat(MAX_MATCH_VALUE_LENGTH)}TAIL`;
      expect(compiled("TAIL").test(long)).to.equal(false);
      expect(compiled("^a+$").test(long)).to.equal(true);
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

    for (const source of ["(a+)+$", "(\\w*)*", "(a|aa)+", "((a+)b)+", "(x{1,3})+y", "^(.*)*$"]) {
      it(`catastrophic ${source} is refused`, () => {
        expect(isCatastrophic(source)).to.equal(true);
        const m = compiled(source);
        expect(m.matcher.kind).to.equal("never");
        expect(m.warnings).to.have.length(1);
        expect(m.warnings[0]).to.include(source);
        expect(m.warnings[0]).to.match(/exponential time; this group matches nothing$/);
      });
    }

    it("refusing (a+)+$ is what keeps a hostile value from stalling: matching returns at once", () => {
      const m = compiled("(a+)+$");
      const start = performance.now();
      expect(m.test(`${"a".repeat(40)}!`)).to.equal(false);
      // A real backtracking run on this input takes minutes; a coarse bound proves it never ran.
      expect(performance.now() - start).to.be.below(1000);
    });
  });

  describe("isCatastrophic leaves ordinary matchers alone", () => {
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
        expect(isCatastrophic(source)).to.equal(false);
        expect(compileMatcher(source).matcher.kind).not.to.equal("never");
      });
    }
  });
});
