import { expect } from "chai";
import { DEFAULT_STOP_BLOCK_CAP, capOf, keptStopBlockCaps, type StopBlockCapSetting } from "../../src/settings/stopBlockCap.js";

const own = (cap: number, display = "~/.claude/settings.json"): StopBlockCapSetting => ({ level: "user", display, pluginRoot: null, own: true, cap });
const other = (cap: number, display = ".claude/settings.json"): StopBlockCapSetting => ({ level: "project", display, pluginRoot: null, own: false, cap });

/** Which files may set qhooks.stopBlockCap, and to what: only the user's own files may lower it. */
describe("settings: stopBlockCap, whose cap counts", () => {
  it(`defaults to ${DEFAULT_STOP_BLOCK_CAP}, and no file's setting is no cap`, () => {
    expect(DEFAULT_STOP_BLOCK_CAP).to.equal(8);
    expect(keptStopBlockCaps([])).to.deep.equal({ kept: [], warnings: [] });
    expect(capOf([])).to.equal(null);
  });

  it("keeps the user's own caps, lower or higher, and the highest-priority one wins", () => {
    const { kept, warnings } = keptStopBlockCaps([own(3), own(20, "--settings extra.json")]);
    expect(kept.map((s) => s.cap)).to.deep.equal([3, 20]);
    expect(warnings).to.deep.equal([]);
    expect(capOf(kept)).to.equal(20);
    expect(capOf(keptStopBlockCaps([own(20), own(3)]).kept)).to.equal(3);
  });

  it("lets another file raise the default cap, not lower it", () => {
    expect(capOf(keptStopBlockCaps([other(12)]).kept)).to.equal(12);
    const lower = keptStopBlockCaps([other(5)]);
    expect(lower.kept).to.deep.equal([]);
    expect(lower.warnings).to.deep.equal([
      ".claude/settings.json: qhooks.stopBlockCap: 5 is lower than the default cap (8); only your own settings can lower it; ignored",
    ]);
  });

  it("measures another file's cap against the user's own, wherever the own file stands", () => {
    const r = keptStopBlockCaps([other(5), own(4)]);
    expect(r.kept.map((s) => s.cap)).to.deep.equal([5, 4]);
    expect(capOf(r.kept)).to.equal(5);
    const lower = keptStopBlockCaps([own(6), other(5, "plugin hooks.json")]);
    expect(lower.kept.map((s) => s.cap)).to.deep.equal([6]);
    expect(lower.warnings).to.deep.equal([
      "plugin hooks.json: qhooks.stopBlockCap: 5 is lower than the cap of your own settings (6); only your own settings can lower it; ignored",
    ]);
  });

  it("takes an equal cap from another file without a warning, and without a change", () => {
    const r = keptStopBlockCaps([other(8)]);
    expect(r.warnings).to.deep.equal([]);
    expect(r.kept).to.deep.equal([]);
    expect(keptStopBlockCaps([own(6), other(6)]).warnings).to.deep.equal([]);
  });

  it("reads 0 as no cap at all, the most a Stop hook can insist", () => {
    // Another file may turn the guard off: 0 is not lower than any cap.
    const off = keptStopBlockCaps([own(3), other(0)]);
    expect(off.warnings).to.deep.equal([]);
    expect(capOf(off.kept)).to.equal(0);
    // With the user's own 0, any other file's cap would lower it.
    const kept = keptStopBlockCaps([own(0), other(100)]);
    expect(kept.kept.map((s) => s.cap)).to.deep.equal([0]);
    expect(kept.warnings).to.have.length(1);
    expect(capOf([own(0), other(100)])).to.equal(0);
  });

  it("takes the highest of other files' raises, whatever their order", () => {
    expect(capOf([own(3), other(10), other(9)])).to.equal(10);
    expect(capOf([own(3), other(9), other(10)])).to.equal(10);
    expect(capOf([other(10), other(0), other(12)])).to.equal(0);
    expect(capOf([other(9)])).to.equal(9);
  });
});
