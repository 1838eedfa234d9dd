import { expect } from "chai";
import { compareVersions } from "../../src/text/semver.js";

describe("text: compareVersions, semantic versioning's order", () => {
  it("compares numbers as numbers, not as text", () => {
    expect(compareVersions("0.9.0", "0.10.0")).to.equal(-1);
    expect(compareVersions("1.10.0", "1.9.9")).to.equal(1);
    expect(compareVersions("2.0.0", "10.0.0")).to.equal(-1);
    expect(compareVersions("1.2.3", "v1.2.3")).to.equal(0);
  });

  it("puts a pre-release before its release, and orders pre-releases by their parts", () => {
    expect(compareVersions("1.0.0-rc.1", "1.0.0")).to.equal(-1);
    expect(compareVersions("1.0.0", "1.0.0-rc.1")).to.equal(1);
    expect(compareVersions("1.0.0-rc.2", "1.0.0-rc.10")).to.equal(-1);
    expect(compareVersions("1.0.0-alpha", "1.0.0-alpha.1")).to.equal(-1);
    expect(compareVersions("1.0.0-1", "1.0.0-alpha")).to.equal(-1);
    expect(compareVersions("1.0.0-beta", "1.0.0-alpha")).to.equal(1);
  });

  it("ignores build metadata, and says null for what is not a version", () => {
    expect(compareVersions("1.0.0+abc", "1.0.0+def")).to.equal(0);
    expect(compareVersions("unknown", "1.0.0")).to.equal(null);
    expect(compareVersions("1.0", "1.0.0")).to.equal(null);
  });
});
