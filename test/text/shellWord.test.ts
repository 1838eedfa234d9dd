import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { shellQuoted, shellWord } from "../../src/text/shellWord.js";

/** What sh makes of a word: the one argument it passes on. */
const asShellReadsIt = (word: string): string => spawnSync("sh", ["-c", `printf %s ${word}`], { encoding: "utf8" }).stdout;

describe("text: words for sh", () => {
  const hostile = ["it's", "a b", "$HOME", "`id`", "x;rm -rf /", "'", "", "tab\there", "new\nline"];

  it("shellQuoted: always one quoted word that sh reads back as the text", () => {
    expect(shellQuoted("plain")).to.equal("'plain'");
    for (const text of [...hostile, "plain"]) expect(asShellReadsIt(shellQuoted(text)), JSON.stringify(text)).to.equal(text);
  });

  it("shellWord: a safe word as it is, anything else quoted, and sh reads back the text", () => {
    expect(shellWord("/usr/bin/node")).to.equal("/usr/bin/node");
    expect(shellWord("a=b,c:d@e%f+g-h.i_j")).to.equal("a=b,c:d@e%f+g-h.i_j");
    for (const text of hostile) {
      expect(shellWord(text), JSON.stringify(text)).to.match(/^'/);
      expect(asShellReadsIt(shellWord(text)), JSON.stringify(text)).to.equal(text);
    }
  });
});
