import { expect } from "chai";
import { JsonLines } from "../../src/doctor/jsonLines.js";

describe("doctor: the line of a JSON path in a settings file's text", () => {
  const text = [
    "{",
    '  "model": "x", "hooks": {',
    '    "PreToolUse": [',
    '      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "a" },',
    '        { "type": "command", "command": "b\\"}]", "timeout": 5 } ] }',
    "    ],",
    '    "a.b": { "weird key": [[1, 2], [3,',
    "      4]] }",
    "  }",
    "}",
  ].join("\n");
  const lines = new JsonLines(text);

  it("members by their key's line, elements by where they start, on one line or many", () => {
    expect(lines.lineOf("hooks")).to.equal(2);
    expect(lines.lineOf("hooks.PreToolUse")).to.equal(3);
    expect(lines.lineOf("hooks.PreToolUse[0]")).to.equal(4);
    expect(lines.lineOf("hooks.PreToolUse[0].matcher")).to.equal(4);
    expect(lines.lineOf("hooks.PreToolUse[0].hooks[1]")).to.equal(5);
    // A string holding brackets and an escaped quote does not move anything.
    expect(lines.lineOf("hooks.PreToolUse[0].hooks[1].timeout")).to.equal(5);
    expect(lines.lineOf("hooks.a.b.weird key[1][1]")).to.equal(8);
  });

  it("a path the text lacks gives its nearest ancestor's line; no path, line 1", () => {
    expect(lines.lineOf("hooks.PreToolUse[0].hooks[0].timeout")).to.equal(4);
    expect(lines.lineOf(null)).to.equal(1);
    expect(lines.lineOf("nothing.here")).to.equal(1);
  });

  it("text that is not JSON gives the lines found before the defect, never throws", () => {
    const broken = new JsonLines('{\n "hooks": {\n  "Stop": [ "unterminated\n');
    expect(broken.lineOf("hooks.Stop")).to.equal(3);
    expect(new JsonLines("").lineOf("hooks")).to.equal(1);
    expect(new JsonLines("]]]}}}").lineOf("x")).to.equal(1);
  });

  it("deep nesting costs its length, no recursion", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(new JsonLines(deep).lineOf("[0][0][0]")).to.equal(1);
  });
});
