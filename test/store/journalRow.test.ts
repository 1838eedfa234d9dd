import { expect } from "chai";
import { JOURNAL_COLUMNS, journalValues, type JournalRow } from "../../src/store/journal/record.js";

describe("store: journal rows", () => {
  it("journalValues lists every column, in the order of JOURNAL_COLUMNS (the INSERT's)", () => {
    // Each column holds its own name, so that any swap or omission shows.
    const row = Object.fromEntries(JOURNAL_COLUMNS.map((c) => [c, c])) as unknown as JournalRow;
    expect(journalValues(row, "seq" as unknown as number, "hash")).to.deep.equal([...JOURNAL_COLUMNS]);
  });
});
