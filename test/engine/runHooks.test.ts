import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, map, merge, toArray, type Observable } from "rxjs";
import { parsePayload } from "../../src/payload/parsePayload.js";
import { joinGroup, runHookGroup, type RunHooksOptions } from "../../src/engine/steps/runHooks.js";
import type { Ran, Recorded } from "../../src/engine/stages.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { Reaper, groupMembers, pidsMatching, procStat, uniqueSleep, waitFor } from "../exec/processes.js";
import type { SelectedHook } from "../../src/core/hookDescriptor.js";
import { commandHook, inProcessHook } from "../support/hooks.js";

/** The hook group of one event (runHookGroup, as the pipeline runs it) on real processes and in-process handlers, outside any bus. */
describe("runHookGroup (real runs)", () => {
  let dir: string;
  let options: RunHooksOptions;
  const reaper = new Reaper();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "qhooks-runhooks-"));
    options = { projectDir: dir, homeDir: dir, baseEnv: { PATH: process.env.PATH, SHLVL: "1" }, maxOutputBytes: 1 << 20, replay: false, callChain: [] };
  });
  afterEach(() => {
    reaper.reap();
    rmSync(dir, { recursive: true, force: true });
  });

  function recorded(hooks: SelectedHook[]): Recorded {
    const parsed = parsePayload({ session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }, { projectDir: dir });
    if (!parsed.ok) throw new Error(parsed.value.error);
    const arrival = { input: "", receivedAt: new Date(), startedAt: performance.now() };
    return {
      arrival,
      valid: parsed.value,
      snapshot: loadSettings([]),
      hooks,
      skipped: [],
      selectionWarnings: [],
      background: undefined,
      seq: null,
      arrivalLogged: "deferred",
      warnings: [],
    };
  }
  const command = (cmd: string, timeoutMs = 10_000): SelectedHook => commandHook(cmd, timeoutMs);
  const inProcess = (name: string, handle: () => unknown, timeoutMs = 10_000): SelectedHook => inProcessHook(name, handle, timeoutMs);
  /** The event with its hooks' results, as the pipeline joins them. */
  const ran$ = (event: Recorded): Observable<Ran> => runHookGroup(event, options).pipe(map((group) => joinGroup(event, group)));
  const later = (ms: number, value: unknown) => () => new Promise((r) => setTimeout(() => r(value), ms));

  it("emits one result per hook, in selection order, when the last one has finished", async () => {
    const start = performance.now();
    const ran = await firstValueFrom(
      ran$(
        recorded([
          inProcess("slowest", later(500, { reason: "first" })),
          command("sleep 0.4; echo second"),
          inProcess("fastest", later(0, { reason: "third" })),
          command("echo fourth"),
        ]),
      ),
    );
    const elapsed = performance.now() - start;
    expect(ran.judged.map((j) => j.result.name)).to.deep.equal(["slowest", "sleep 0.4; echo second", "fastest", "echo fourth"]);
    expect(ran.judged.map((j) => j.verdict.reason ?? j.result.stdout.trim())).to.deep.equal(["first", "second", "third", "fourth"]);
    expect(elapsed, "waits for the slowest").to.be.at.least(490);
    expect(elapsed, "the runs overlap (one after another: over 900 ms)").to.be.below(850);
  });

  it("a timed-out run does not cancel its siblings, and its process group is killed", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const ran = await firstValueFrom(
      ran$(recorded([command(`${sleeper} & wait`, 200), command("sleep 0.4; echo sibling"), inProcess("late", later(450, { reason: "late" }))])),
    );
    expect(ran.judged.map((j) => j.result.outcome)).to.deep.equal(["timeout", "success", "success"]);
    expect(ran.judged[0]!.result).to.include({ timedOut: true, exitCode: null });
    expect(ran.judged[1]!.result.stdout).to.equal("sibling\n");
    expect(ran.judged[2]!.verdict.reason).to.equal("late");
    await waitFor(`no ${sleeper} left`, () => pidsMatching(sleeper).length === 0, 1500);
  });

  it("an event without hooks has an empty group at once, and the groups of several events run concurrently", async () => {
    const start = performance.now();
    const all = await firstValueFrom(
      merge(ran$(recorded([command("sleep 0.5; echo a")])), ran$(recorded([])), ran$(recorded([command("sleep 0.5; echo b")]))).pipe(toArray()),
    );
    expect(performance.now() - start, "events overlap (one after another: over 1 s)").to.be.below(900);
    expect(all.map((r) => r.judged.map((j) => j.result.stdout.trim()).join(""))).to.have.members(["a", "", "b"]);
  });

  it("unsubscribing while hooks run kills their process groups", async () => {
    const sleeper = reaper.marker(uniqueSleep(30));
    const sub = ran$(recorded([command(`${sleeper} & wait`), command(`${sleeper}`)])).subscribe();
    const pids = await waitFor(`${sleeper} running in both hooks`, () => (pidsMatching(sleeper).length >= 3 ? pidsMatching(sleeper) : null), 2000);
    const groups = [...new Set(pids.map((p) => procStat(p)!.pgrp))];
    expect(groups, "one process group per hook").to.have.length(2);
    sub.unsubscribe();
    await waitFor("both hooks' groups gone", () => groups.every((g) => groupMembers(g).length === 0), 1500);
  });
});
