import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHookBus } from "../../src/engine/createHookBus.js";
import { selectHooks } from "../../src/engine/steps/matchHooks.js";
import type { Outcome } from "../../src/schema/outcome.js";
import { loadSettings } from "../../src/settings/loadSettings.js";
import { discoverSettings } from "../../src/settings/settingsSources.js";
import { splitByTrust } from "../../src/trust/splitByTrust.js";
import { trustStorePath } from "../../src/trust/trustStore.js";
import { createTrustPolicy } from "../../src/trust/trustPolicy.js";
import { caseResult, interleave, progress, rate, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, CLI, preToolUsePayload, runChild } from "../fixtures.js";
import type { BenchConfig } from "../config.js";

/**
 * Case T: what trust costs on the dispatch path. A project with one hook, `./scripts/guard.sh` (a 4 KB script), and
 * a trust store of 200 entries that trusts it. T1 and T2 measure the selection step alone (selectHooks, then the
 * split by trust) as a long-lived engine pays it (store and script hashes remembered by stamp) and as one CLI call
 * does (read the store, hash the script); T3 and T4 whole dispatches and `qhooks run`, trust on against off.
 */
export async function trustCases(config: BenchConfig): Promise<CaseResult[]> {
  const dir = new BenchDir("trust");
  try {
    const script = join(dir.project, "scripts", "guard.sh");
    mkdirSync(join(script, ".."), { recursive: true });
    writeFileSync(script, `#!/bin/sh\ncat > /dev/null\n${"# a comment line of a realistic guard script\n".repeat(90)}exit 0\n`, { mode: 0o755 });
    mkdirSync(join(dir.project, ".qoder"));
    writeFileSync(
      join(dir.project, ".qoder", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./scripts/guard.sh" }] }] } }),
    );
    const userFile = join(dir.home, ".qoder-cn", "settings.json");
    mkdirSync(join(userFile, ".."), { recursive: true });
    const setSwitch = (on: boolean) => writeFileSync(userFile, JSON.stringify({ qhooks: { requireTrust: on } }));
    setSwitch(true);
    const env = benchEnv(dir.home);
    const trusted = await runChild(process.execPath, [CLI, "trust", "--project-dir", dir.project], { env, cwd: dir.project });
    if (trusted.code !== 0) throw new Error(`qhooks trust exited ${trusted.code}: ${trusted.stderr}`);
    padStore(dir.home, 199);

    // The selection step, in process.
    const snapshotOn = loadSettings(discoverSettings(dir.home, dir.project));
    const snapshotOff = { ...snapshotOn, requireTrust: false };
    const payload = { event: "PreToolUse" as const, matchValue: "Bash" };
    const setup = { homeDir: dir.home, projectDir: dir.project, env: {}, trustCommand: "qhooks trust" };
    const engine = createTrustPolicy(setup);
    const select = (trust: ReturnType<typeof createTrustPolicy>, snapshot: typeof snapshotOn) => {
      const split = splitByTrust(selectHooks(payload.event, payload.matchValue, snapshot, []), trust.check(snapshot));
      if (split.runnable.length !== 1) throw new Error(`expected the trusted hook to run: ${JSON.stringify(split.skipped)}`);
    };
    const n = config.quick ? 2_000 : 20_000;
    progress(`case T1/T2: ${n} selections, trust on (engine, CLI) vs off`);
    // Files written in the last second are never remembered (a same-tick edit would look alike): let them age.
    await new Promise((r) => setTimeout(r, 1100));
    const s = await interleave(
      {
        off: () =>
          rate(n, () => {
            for (let i = 0; i < n; i++) select(engine, snapshotOff);
          }),
        engine: () =>
          rate(n, () => {
            for (let i = 0; i < n; i++) select(engine, snapshotOn);
          }),
        cli: () =>
          rate(n / 10, () => {
            for (let i = 0; i < n / 10; i++) select(createTrustPolicy(setup), snapshotOn);
          }),
      },
      config.noMatchReps,
      1,
    );

    // Whole dispatches through the bus, log off, the same trusted hook running.
    const reps = config.oneHookReps;
    progress(`case T3: ${reps} one-hook dispatches, trust on vs off`);
    setSwitch(false);
    const busOn = createHookBus({ projectDir: dir.project, homeDir: dir.home, db: false, watch: false, env: { ...env, QHOOKS_REQUIRE_TRUST: "1" } });
    const busOff = createHookBus({ projectDir: dir.project, homeDir: dir.home, db: false, watch: false, env });
    const json = preToolUsePayload();
    const dispatch = (bus: typeof busOn) => async () => {
      const start = performance.now();
      const o: Outcome = await bus.dispatch(json);
      if (o.hooks.length !== 1 || o.skipped.length !== 0) throw new Error(`unexpected outcome ${JSON.stringify(o.skipped)}`);
      return performance.now() - start;
    };
    const d = await interleave({ on: dispatch(busOn), off: dispatch(busOff) }, reps, 5);
    await Promise.all([busOn.close(), busOff.close()]);

    progress(`case T4: qhooks run with the trusted hook, trust on vs off, ${config.startupReps} runs each`);
    const run = (extra: Record<string, string>) => async () => {
      const r = await runChild(process.execPath, [CLI, "run", "PreToolUse", "--no-log", "--project-dir", dir.project], {
        input: json,
        env: { ...env, ...extra },
        cwd: dir.project,
      });
      if (r.code !== 0 || !r.stdout.includes('"skipped": []')) throw new Error(`qhooks run: ${r.code} ${r.stderr}`);
      return r.ms;
    };
    const c = await interleave({ on: run({ QHOOKS_REQUIRE_TRUST: "1" }), off: run({}) }, config.startupReps, 2);

    return [
      caseResult({
        id: "T1",
        name: "selection, trust on, long-lived engine (remembered)",
        unit: "events/s",
        qhooks: s.engine,
        baseline: s.off,
        baselineName: "trust off",
        target: null,
      }),
      caseResult({
        id: "T2",
        name: "selection, trust on, as one CLI call pays it",
        unit: "events/s",
        qhooks: s.cli,
        baseline: s.off,
        baselineName: "trust off",
        target: null,
      }),
      caseResult({
        id: "T3",
        name: "dispatch, 1 trusted project hook, log off",
        unit: "ms",
        qhooks: d.on,
        baseline: d.off,
        baselineName: "trust off",
        target: null,
      }),
      caseResult({
        id: "T4",
        name: "qhooks run, 1 trusted project hook, --no-log",
        unit: "ms",
        qhooks: c.on,
        baseline: c.off,
        baselineName: "trust off",
        target: null,
      }),
    ];
  } finally {
    dir.dispose();
  }
}

/** More entries of other projects, as a store used for a while holds. */
function padStore(home: string, extra: number): void {
  const path = trustStorePath(home);
  const store = JSON.parse(readFileSync(path, "utf8")) as { version: 1; trusted: unknown[] };
  for (let i = 0; i < extra; i++) {
    store.trusted.push({
      scope: { kind: "project", path: `/home/dev/project-${i}` },
      digest: i.toString(16).padStart(64, "0"),
      command: `./scripts/check-${i}.sh`,
      files: [`/home/dev/project-${i}/scripts/check-${i}.sh`],
      where: ".qoder/settings.json hooks.PreToolUse[0].hooks[0]",
      trustedAt: new Date().toISOString(),
    });
  }
  writeFileSync(path, JSON.stringify(store, null, 2), { mode: 0o600 });
}
