import { createHookBus, type HookBus } from "../../src/engine/createHookBus.js";
import type { Outcome } from "../../src/schema/outcome.js";
import { watchdog } from "../../src/exec/watchdog.js";
import { caseResult, interleave, progress, timeMs, withPeer, type CaseResult } from "../harness.js";
import { BenchDir, benchEnv, preToolUsePayload, rawSpawn } from "../fixtures.js";
import type { BenchConfig } from "../config.js";
import type { Peer } from "../peer/peer.js";

export function hookBus(dir: BenchDir, settingsFiles: readonly string[], db: string | false): HookBus {
  return createHookBus({ projectDir: dir.project, homeDir: dir.home, db, settingsFiles: [...settingsFiles], watch: false, env: benchEnv(dir.home) });
}

function expectHooks(outcome: Outcome, n: number): void {
  if (outcome.hooks.length !== n || outcome.hooks.some((h) => h.outcome !== "success")) {
    throw new Error(`expected ${n} successful hooks, got ${JSON.stringify(outcome.hooks.map((h) => [h.name, h.outcome, h.error]))}`);
  }
}

/** Makes the watchdog's per-hook messages no-ops (the watchdog process keeps running); returns the undo. */
function muteWatchdog(): () => void {
  const w = watchdog as unknown as Record<string, unknown>;
  w.watch = () => undefined;
  w.unwatch = () => undefined;
  return () => {
    delete w.watch;
    delete w.unwatch;
  };
}

/**
 * Cases 2 and 3: library dispatch of a PreToolUse event with one, then ten, `sh -c true` hooks, logging on, against
 * raw `child_process.spawn` of the same shell with the payload piped to stdin (ten with Promise.all).
 */
export async function dispatchHookCases(config: BenchConfig, peer: Peer | null): Promise<CaseResult[]> {
  const dir = new BenchDir("dispatch");
  const payload = preToolUsePayload();
  const one = hookBus(dir, [dir.settings("one", [{ matcher: "Bash", command: "true" }])], dir.path("one.db"));
  const ten = hookBus(
    dir,
    [
      dir.settings(
        "ten",
        Array.from({ length: 10 }, (_, i) => ({ matcher: "Bash", command: `true #${i}` })),
      ),
    ],
    dir.path("ten.db"),
  );
  try {
    progress(`case 2: dispatch with one hook vs raw spawn, ${config.oneHookReps} each`);
    const oneHook = async () => {
      let outcome: Outcome | undefined;
      const ms = await timeMs(async () => (outcome = await one.dispatch(payload)));
      expectHooks(outcome!, 1);
      return ms;
    };
    const raw = () => timeMs(() => rawSpawn(payload));
    let unmute: (() => void) | null = null;
    const oneHookMuted = async () => {
      unmute = muteWatchdog();
      try {
        return await oneHook();
      } finally {
        unmute();
      }
    };
    const s2 = await interleave(
      { qhooks: oneHook, raw, muted: oneHookMuted, peer: peer ? () => peer.dispatchOneHook(payload) : undefined },
      config.oneHookReps,
      20,
    );

    progress(`case 3: dispatch with ten hooks vs ten raw spawns, ${config.tenHookReps} each`);
    const tenHooks = async () => {
      let outcome: Outcome | undefined;
      const ms = await timeMs(async () => (outcome = await ten.dispatch(payload)));
      expectHooks(outcome!, 10);
      return ms;
    };
    const rawTen = () => timeMs(() => Promise.all(Array.from({ length: 10 }, () => rawSpawn(payload))));
    const s3 = await interleave({ qhooks: tenHooks, raw: rawTen, peer: peer ? () => peer.dispatchTenHooks(payload) : undefined }, config.tenHookReps, 5);

    let c2 = caseResult({
      id: "2",
      name: "dispatch, 1 sh -c true hook, log on",
      unit: "ms",
      qhooks: s2.qhooks,
      baseline: s2.raw,
      baselineName: "raw spawn",
      target: { kind: "ratio-max", value: 1.25 },
    });
    let c3 = caseResult({
      id: "3",
      name: "dispatch, 10 hooks in parallel, log on",
      unit: "ms",
      qhooks: s3.qhooks,
      baseline: s3.raw,
      baselineName: "10 raw spawns",
      target: { kind: "ratio-max", value: 1.25 },
    });
    if (peer) c2 = withPeer(c2, peer.name, s2.peer);
    if (peer) c3 = withPeer(c3, peer.name, s3.peer);
    const muted = caseResult({
      id: "2i",
      name: "  case 2 with the watchdog's messages muted",
      unit: "ms",
      qhooks: s2.muted,
      baseline: s2.raw,
      baselineName: "raw spawn",
      target: null,
    });
    return [c2, muted, c3];
  } finally {
    await one.close();
    await ten.close();
    dir.dispose();
  }
}
