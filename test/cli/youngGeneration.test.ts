import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../support/sandbox.js";

/**
 * youngGenerationCap, in a process of its own (it changes a V8 flag for the whole process): a stream of garbage
 * makes V8 grow its young generation to 32 MB, except once the cap's check has seen it reach the cap.
 */
describe("cli: the young generation cap of the streaming commands and the server", () => {
  function youngGenerationAfterStream(withCap: boolean): number {
    const module = join(REPO_ROOT, "dist", "src", "cli", "youngGeneration.js");
    const script = `
      import { getHeapSpaceStatistics } from "node:v8";
      import { youngGenerationCap } from ${JSON.stringify(module)};
      const check = ${withCap} ? youngGenerationCap(4) : () => undefined;
      const kept = [];
      let peak = 0;
      for (let i = 0; i < 3_000_000; i++) {
        check();
        const record = { seq: i, text: "event " + i, hooks: [i, i + 1] };
        if (i % 1000 === 0) kept.push(record);
        if (kept.length > 100) kept.shift();
        if (i % 10_000 === 0) peak = Math.max(peak, getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);
      }
      console.log(peak);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.stderr).to.equal("");
    return Number(r.stdout.trim()) / (1024 * 1024);
  }

  it("without the cap the young generation grows past 16 MB; with a 4 MB cap it stops at the first size past it", () => {
    expect(youngGenerationAfterStream(false)).to.be.greaterThan(16);
    const capped = youngGenerationAfterStream(true);
    expect(capped).to.be.at.least(4);
    expect(capped).to.be.at.most(8);
  });

  /**
   * A process that returns to its event loop between chunks of garbage and starts a thread halfway, like a server
   * whose log starts its projector thread: the peak of its young generation, in MB.
   */
  function youngGenerationWithThread(how: "hold" | "once"): number {
    const module = join(REPO_ROOT, "dist", "src", "cli", "youngGeneration.js");
    const script = `
      import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
      import { Worker } from "node:worker_threads";
      import { holdYoungGeneration } from ${JSON.stringify(module)};
      const young = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
      const release = ${how === "hold"} ? holdYoungGeneration(4) : () => undefined;
      const kept = [];
      let peak = 0;
      let once = false;
      for (let round = 0; round < 300; round++) {
        for (let i = 0; i < 20_000; i++) {
          const record = { seq: i, text: "event " + i, hooks: [i, i + 1] };
          if (i % 1000 === 0) kept.push(record);
          if (kept.length > 100) kept.shift();
        }
        if (${how === "once"} && !once && young() >= 4 * 1024 * 1024) {
          setFlagsFromString("--semi-space-growth-factor=1");
          once = true;
        }
        if (round === 60) {
          const worker = new Worker("setTimeout(() => {}, 50)", { eval: true });
          await new Promise((resolve) => worker.once("exit", resolve));
        }
        await new Promise((resolve) => setImmediate(resolve));
        peak = Math.max(peak, young());
      }
      release();
      console.log(peak);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.stderr).to.equal("");
    return Number(r.stdout.trim()) / (1024 * 1024);
  }

  it("a server holds it at the first size past the cap, also after a thread starts (which sets V8's growth factor back)", () => {
    expect(youngGenerationWithThread("once"), "the flag set once: the thread's start lets it grow again").to.be.greaterThan(8);
    const held = youngGenerationWithThread("hold");
    expect(held).to.be.at.least(4);
    expect(held).to.be.at.most(8);
  });
});
