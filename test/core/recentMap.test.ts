import { expect } from "chai";
import { RecentMap, RecentSet, sessionMemory } from "../../src/core/recentMap.js";
import { memoryOnce } from "../../src/handlers/once.js";
import { memoryCounter } from "../../src/handlers/noticeMemory.js";

/** What a long-lived process remembers per project or session stays bounded, and the sessions still active keep theirs. */
describe("RecentMap and the per-session memories of long-lived processes", () => {
  it("keeps the most recently used entries: a read makes an entry the newest, the oldest go first, each told", () => {
    const evicted: string[] = [];
    const map = new RecentMap<string, number>(3, { onEvict: (_, key) => evicted.push(key) });
    map.set("a", 1).set("b", 2).set("c", 3);
    expect(map.get("a")).to.equal(1);
    map.set("d", 4);
    expect(evicted).to.deep.equal(["b"]);
    map.set("e", 5);
    expect(evicted).to.deep.equal(["b", "c"]);
    expect([...map.values()]).to.deep.equal([1, 4, 5]);
    expect(map.size).to.equal(3);
  });

  it("passes over entries it is told to keep, and lets them go once they may", () => {
    const busy = new Set(["a", "b"]);
    const evicted: string[] = [];
    const map = new RecentMap<string, string>(2, { keep: (v) => busy.has(v), onEvict: (v) => evicted.push(v) });
    map.set("a", "a").set("b", "b").set("c", "c");
    expect(evicted, "the busy stay: the one that may go goes, new as it is").to.deep.equal(["c"]);
    busy.add("d");
    map.set("d", "d");
    expect(map.size, "above the bound while both are busy").to.equal(3);
    busy.delete("a");
    map.trim();
    expect(evicted).to.deep.equal(["c", "a"]);
    expect(map.size).to.equal(2);
    expect(() => new RecentMap(0)).to.throw(RangeError);
  });

  it("RecentSet keeps the members last added or asked about", () => {
    const set = new RecentSet<string>(2);
    set.add("a").add("b");
    expect(set.has("a")).to.equal(true);
    set.add("c");
    expect([set.has("b"), set.has("a"), set.has("c"), set.size]).to.deep.equal([false, true, true, 2]);
  });

  it("sessionMemory keeps the sessions last seen: a session active all along keeps its facts through many others", () => {
    const facts = sessionMemory(() => ({ n: 0 }), 10);
    facts("alive").n = 7;
    for (let i = 0; i < 1000; i++) {
      facts(`s${i}`).n = i;
      if (i % 5 === 0) expect(facts("alive").n).to.equal(7);
    }
    expect(facts("alive").n).to.equal(7);
    expect(facts("s0").n, "a session not seen for 999 others is new again").to.equal(0);
  });

  it("memoryOnce: after many sessions, a returning active session does not run its once-hook again; a long-gone one may", () => {
    const once = memoryOnce(5);
    expect(once.claim("alive", "hook")).to.equal(true);
    for (let i = 0; i < 100; i++) {
      expect(once.claim(`s${i}`, "hook")).to.equal(true);
      if (i % 3 === 0) expect(once.claim("alive", "hook"), "still remembered").to.equal(false);
    }
    expect(once.claim("alive", "hook")).to.equal(false);
    expect(once.claim("alive", "other")).to.equal(true);
    expect(once.claim("s0", "hook"), "forgotten: past the bound").to.equal(true);
  });

  it("memoryCounter: an active session's count goes on through many others", () => {
    const counter = memoryCounter(5);
    expect(counter.count("alive", "k")).to.equal(1);
    for (let i = 0; i < 100; i++) {
      counter.count(`s${i}`, "k");
      if (i % 3 === 0) counter.count("alive", "k");
    }
    expect(counter.count("alive", "k")).to.equal(36);
    expect(counter.count("s0", "k")).to.equal(1);
  });
});
