import { expect } from "chai";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/json/jsonDepth.js";
import { parseStoredJson, prettyStoredJson } from "../../src/json/storedJson.js";

const nested = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`;

describe("json: nestsDeeperThan, the depth guard before JSON.parse", () => {
  it(`allows ${MAX_JSON_DEPTH} levels by default, not one more`, () => {
    expect(MAX_JSON_DEPTH).to.equal(512);
    expect(nestsDeeperThan(nested(512))).to.equal(false);
    expect(nestsDeeperThan(nested(513))).to.equal(true);
  });

  it("counts arrays and objects alike, against the limit given", () => {
    expect(nestsDeeperThan("[{}]", 2)).to.equal(false);
    expect(nestsDeeperThan("[{[]}]", 2)).to.equal(true);
    expect(nestsDeeperThan('{"a":{"b":1}}', 1)).to.equal(true);
    expect(nestsDeeperThan('{"a":{"b":1}}', 2)).to.equal(false);
  });

  it("measures depth, not how many containers there are: a closed one gives its level back", () => {
    expect(nestsDeeperThan("[][][]", 1)).to.equal(false);
    expect(nestsDeeperThan("{}{}{}", 1)).to.equal(false);
    expect(nestsDeeperThan("[[],[],[]]", 2)).to.equal(false);
    expect(nestsDeeperThan('[{"a":1},{"b":2}]', 2)).to.equal(false);
  });

  it("skips brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan('["[[[[", "{{{{"]', 1)).to.equal(false);
    expect(nestsDeeperThan('["\\"[[[["]', 1)).to.equal(false);
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).to.equal(true);
    expect(nestsDeeperThan('["a", [[]]]', 2)).to.equal(true);
  });

  it("text with no containers nests nowhere", () => {
    expect(nestsDeeperThan('"[[["', 0)).to.equal(false);
    expect(nestsDeeperThan("42", 0)).to.equal(false);
    expect(nestsDeeperThan("[]", 0)).to.equal(true);
  });
});

describe("json: stored JSON texts, as values and as printed", () => {
  it("parses a stored text that is JSON, and keeps one that is not as text", () => {
    expect(parseStoredJson('{"a":[1,"x"]}')).to.deep.equal({ a: [1, "x"] });
    expect(parseStoredJson("not json")).to.equal("not json");
  });

  it("keeps a text that nests too deep to print again as text", () => {
    const deep = nested(MAX_JSON_DEPTH + 1);
    expect(parseStoredJson(deep)).to.equal(deep);
    expect(prettyStoredJson(deep)).to.equal(deep);
  });

  it("indents JSON by two spaces and leaves other text alone", () => {
    expect(prettyStoredJson('{"a":[1]}')).to.equal('{\n  "a": [\n    1\n  ]\n}');
    expect(prettyStoredJson("plain words")).to.equal("plain words");
  });

  it("prints a stored JSON string as JSON, quotes and all", () => {
    expect(prettyStoredJson('"quoted"')).to.equal('"quoted"');
    // Printed again, not echoed: an escape it need not have is gone.
    expect(prettyStoredJson('"\\u0041"')).to.equal('"A"');
  });
});
