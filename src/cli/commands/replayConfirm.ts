import { createInterface } from "node:readline";
import { QhooksError } from "../../errors.js";
import type { ReplayPlan } from "../../engine/replayPlan.js";
import { err } from "../io.js";

/** Hook names shown in the line that says what a replay will run; the rest are counted. */
const NAMES_SHOWN = 8;

/**
 * Says what a replay will run and goes on only when agreed: `--yes`, or "y" on a terminal. Elsewhere (a script, CI,
 * an agent's shell) it refuses in one line: a replay re-runs every matching hook for real, side effects and all.
 * A replay that runs no hook needs no agreement.
 */
export async function confirmReplay(plan: ReplayPlan, options: { readonly yes: boolean; readonly shown: (text: string) => string }): Promise<void> {
  if (plan.runs === 0) return;
  const hooks = `${plan.hooks.length} hook${plan.hooks.length === 1 ? "" : "s"}`;
  const events = `${plan.eventsRunning} event${plan.eventsRunning === 1 ? "" : "s"}`;
  const ofAll = plan.eventsRunning === plan.events ? events : `${plan.eventsRunning} of ${plan.events} events`;
  const names =
    plan.hooks.slice(0, NAMES_SHOWN).map(options.shown).join(", ") + (plan.hooks.length > NAMES_SHOWN ? `, and ${plan.hooks.length - NAMES_SHOWN} more` : "");
  const spared = [
    ...(plan.skippedHooks.length ? [`skipped: ${plan.skippedHooks.map(options.shown).join(", ")}`] : []),
    ...(plan.stubbedHooks.length ? [`stubbed: ${plan.stubbedHooks.map(options.shown).join(", ")}`] : []),
    ...(plan.skippedEvents ? [`${plan.skippedEvents} event${plan.skippedEvents === 1 ? "" : "s"} skipped (--skip-event)`] : []),
  ];
  const what = `${hooks} (${names}) on ${ofAll}, ${plan.runs} run${plan.runs === 1 ? "" : "s"} in all${spared.length ? `; ${spared.join("; ")}` : ""}`;
  if (options.yes) return err(`Replay runs ${what}.`);
  if (!(process.stdin.isTTY && process.stderr.isTTY)) {
    throw new QhooksError("usage", `replay would run ${what}, for real: pass --yes to run them, or --match-only to see which hooks match without running any`);
  }
  err(`Replay will run ${what}.`);
  const answer = await ask(`Run ${hooks} on ${events}? [y/N] `);
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw new QhooksError("usage", "replay cancelled; no hook ran");
}

/** One line read from the terminal; "" when it closes or on Ctrl-C. */
function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise<string>((resolve) => {
    rl.once("close", () => resolve(""));
    rl.once("SIGINT", () => rl.close());
    rl.question(question, (answer) => {
      resolve(answer);
      rl.close();
    });
  });
}
