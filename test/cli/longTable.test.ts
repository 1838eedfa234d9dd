import { expect } from "chai";
import { table } from "../../src/cli/format.js";

/** Listings (`sessions`, `log`) print a table of every row they read: its width is a fold, never a spread. */
describe("CLI: a table of 200,000 rows", () => {
  it("is laid out (Math.max(...column) overflowed the stack past about 125,000 rows)", () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [`s${i}`, String(i % 7)]);
    const lines = table(["SESSION", "EVENTS"], rows).split("\n");
    expect(lines).to.have.length(200_001);
    expect(lines[0]).to.equal(`SESSION${" ".repeat("s199999".length - "SESSION".length)}  EVENTS`);
    expect(lines.at(-1)).to.equal(`s199999  ${199_999 % 7}`);
  });
});
