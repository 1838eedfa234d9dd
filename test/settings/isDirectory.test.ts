import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDirectory } from "../../src/settings/isDirectory.js";

describe("isDirectory", () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), "qhooks-isdir-"));
    mkdirSync(join(root, "dir"));
    writeFileSync(join(root, "file"), "x");
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("is true for a directory only", () => {
    expect(isDirectory(join(root, "dir"))).to.equal(true);
    expect(isDirectory(join(root, "file"))).to.equal(false);
  });

  it("is false, without throwing, for what is not there: a missing path, a path below a file, the empty string", () => {
    expect(isDirectory(join(root, "gone"))).to.equal(false);
    expect(isDirectory(join(root, "file", "below"))).to.equal(false);
    expect(isDirectory("")).to.equal(false);
  });
});
