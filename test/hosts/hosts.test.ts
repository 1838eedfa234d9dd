import { expect } from "chai";
import { DIALECTS } from "../../src/hosts/hostDialect.js";
import { HOSTS } from "../../src/hosts/hosts.js";
import { describeHostDialect } from "./hostDialect.suite.js";

describe("hosts", () => {
  it("every dialect has its host, under its own id", () => {
    expect(Object.keys(HOSTS).sort()).to.deep.equal([...DIALECTS].sort());
    for (const id of DIALECTS) expect(HOSTS[id].id).to.equal(id);
  });
  for (const id of DIALECTS) describeHostDialect(HOSTS[id]);
});
