import { expect } from "chai";
import { budgetByName } from "../../src/settings/budgetByName.js";

describe("budgetByName", () => {
  it("puts an entry under each name it reaches now (an old name, a short name two hooks share)", () => {
    const named = (name: string): string[] => (name === "check.sh" ? ["user: check.sh", "project: check.sh"] : [name]);
    expect(budgetByName({ "check.sh": { msPerTurn: 500 }, fmt: { contextChars: 100 } }, named)).to.deep.equal({
      "user: check.sh": { msPerTurn: 500 },
      "project: check.sh": { msPerTurn: 500 },
      fmt: { contextChars: 100 },
    });
  });

  it("gives a hook two entries reach the lower limit of each kind, so that no entry loosens another", () => {
    const named = (name: string): string[] => (name === "old" || name === "new" ? ["new"] : [name]);
    expect(budgetByName({ old: { msPerTurn: 200, contextChars: 900 }, new: { msPerTurn: 800 } }, named)).to.deep.equal({
      new: { msPerTurn: 200, contextChars: 900 },
    });
    expect(budgetByName({ new: { msPerTurn: 800 }, old: { contextChars: 50 } }, named)).to.deep.equal({ new: { msPerTurn: 800, contextChars: 50 } });
  });
});
