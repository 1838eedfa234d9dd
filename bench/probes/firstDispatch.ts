/**
 * Run in a fresh process by the watchdog case: times the first dispatch with one hook (when the engine starts its
 * watchdog shell), then steady-state dispatches. Mode `prestarted` starts the watchdog before the first dispatch;
 * mode `raw` times raw spawns instead. Prints one JSON line.
 */
import { createHookBus } from "../../src/engine/createHookBus.js";
import { watchdog } from "../../src/exec/watchdog.js";
import { median } from "../harness.js";
import { preToolUsePayload, rawSpawn } from "../fixtures.js";

const [mode, settingsFile, db, home, project] = process.argv.slice(2) as [string, string, string, string, string];
const payload = preToolUsePayload();
const STEADY = 20;

let startMs: number | null = null;
let one: () => Promise<unknown>;
let close = async () => undefined as unknown;
if (mode === "raw") {
  one = () => rawSpawn(payload);
} else {
  const bus = createHookBus({ projectDir: project, homeDir: home, db, settingsFiles: [settingsFile], watch: false, env: { ...process.env, HOME: home } });
  // The pipeline's code paths are warmed by an event no hook matches, so that the first hook run differs from
  // the steady state by what only a first hook run does (starting the watchdog, the first spawn).
  await bus.dispatch(preToolUsePayload({ tool: "Read" }));
  if (mode === "prestarted") {
    const t = performance.now();
    (watchdog as unknown as { start(): unknown }).start();
    startMs = performance.now() - t;
    await new Promise((r) => setTimeout(r, 50));
  }
  one = () => bus.dispatch(payload);
  close = () => bus.close();
}
const t0 = performance.now();
await one();
const first = performance.now() - t0;
const steady: number[] = [];
for (let i = 0; i < STEADY; i++) {
  const t = performance.now();
  await one();
  steady.push(performance.now() - t);
}
await close();
process.stdout.write(`${JSON.stringify({ mode, first, steady: median(steady), startMs })}\n`);
