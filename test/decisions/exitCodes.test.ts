import { expect } from "chai";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { EXIT2_DECISION, busWith, hookCommand, only, settingsFor, withoutWarnings } from "./helpers.js";

/** Contract 2.1 and 3.1: what each exit status of a command hook means, on every one of the twelve events. */
describe("decisions: a hook's exit status, per event", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  for (const [event, blockDecision] of EXIT2_DECISION) {
    describe(event, () => {
      it("exit 0 is a success with no decision", async () => {
        const bus = busWith(sb, event, hookCommand(sb, { stderr: "just chatter\n", exit: 0 }));
        const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
        expect(outcome).to.include({ event, decision: "none", blocked: false, reason: null, continue: true });
        expect(only(outcome)).to.include({ outcome: "success", decision: "none", exitCode: 0, error: null, timedOut: false });
      });

      if (blockDecision !== null) {
        it(`exit 2 blocks with decision ${blockDecision}; the reason is stderr, trimmed; stdout is ignored`, async () => {
          const stdout = JSON.stringify({ decision: "approve", hookSpecificOutput: { hookEventName: event, permissionDecision: "allow" } });
          const command = hookCommand(sb, { stdout, stderr: "\n  Not allowed: rule 7\n  second line  \n\n", exit: 2 });
          const bus = busWith(sb, event, command);
          const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
          const reason = "Not allowed: rule 7\n  second line";
          expect(outcome).to.include({ decision: blockDecision, blocked: true, reason });
          expect(outcome.additionalContext).to.deep.equal([]);
          expect(outcome.updatedInput).to.equal(null);
          expect(only(outcome)).to.include({ outcome: "block", decision: blockDecision, reason, exitCode: 2 });
        });

        it("exit 2 with an empty stderr gives the default reason naming the hook", async () => {
          const bus = busWith(sb, event, { command: hookCommand(sb, { stderr: "  \n", exit: 2 }), name: "guard-7" });
          const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
          expect(outcome).to.include({ decision: blockDecision, blocked: true, reason: "blocked by hook guard-7 (no reason given)" });
          expect(only(outcome)).to.include({ outcome: "block", name: "guard-7" });
        });

        it("exit 2 of an unnamed hook names it by its command", async () => {
          const command = hookCommand(sb, { exit: 2 });
          const outcome = await busWith(sb, event, command).dispatch({ ...payloadFor(event), hook_event_name: event });
          expect(outcome.reason).to.equal(`blocked by hook ${command} (no reason given)`);
        });
      } else {
        it("exit 2 is a non-blocking error: the event cannot be blocked", async () => {
          const bus = busWith(sb, event, hookCommand(sb, { stderr: "please block\nmore\n", exit: 2 }));
          const outcome = await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
          expect(outcome).to.include({ decision: "none", blocked: false, reason: null, continue: true });
          const hook = only(outcome);
          expect(hook).to.include({ outcome: "error", decision: "none", exitCode: 2, reason: null });
          expect(hook.error).to.be.a("string").and.include("please block");
          expect(hook.error).not.to.include("more");
        });
      }

      for (const code of [1, 3, 42]) {
        it(`exit ${code} is a non-blocking error whose message is the first stderr line`, async () => {
          const command = hookCommand(sb, { stdout: "Ignored output\n", stderr: "\nfirst line of trouble\nsecond line\n", exit: code });
          const outcome = await busWith(sb, event, command).dispatch({ ...payloadFor(event), hook_event_name: event });
          expect(outcome).to.include({ decision: "none", blocked: false, reason: null });
          const hook = only(outcome);
          expect(hook).to.include({ outcome: "error", decision: "none", exitCode: code });
          expect(hook.error).to.be.a("string").and.include("first line of trouble");
          expect(hook.error).not.to.include("second line");
          expect(hook.stderr).to.equal("\nfirst line of trouble\nsecond line\n");
        });
      }
    });
  }

  it("exit 127 says the command was not found", async () => {
    const outcome = await busWith(sb, "PreToolUse", "/nonexistent/qhooks-no-such-hook --flag").dispatch({
      ...payloadFor("PreToolUse"),
      hook_event_name: "PreToolUse",
    });
    const hook = only(outcome);
    expect(hook).to.include({ outcome: "error", exitCode: 127 });
    expect(hook.error).to.match(/not found/);
    expect(outcome.blocked).to.equal(false);
  });

  it("a hook killed by a signal qhooks did not send is a non-blocking error", async () => {
    const outcome = await busWith(sb, "Stop", "echo dying >&2; kill -9 $$").dispatch({ ...payloadFor("Stop"), hook_event_name: "Stop" });
    const hook = only(outcome);
    expect(hook).to.include({ outcome: "error", signal: "SIGKILL", timedOut: false });
    expect(outcome).to.include({ decision: "none", blocked: false });
  });

  it("an error never blocks, even next to an exit 2 on a non-blockable event", async () => {
    const bus = busWith(sb, "SessionStart", hookCommand(sb, { exit: 2 }), hookCommand(sb, { exit: 1 }), hookCommand(sb, { exit: 0 }));
    const outcome = await bus.dispatch({ ...payloadFor("SessionStart"), hook_event_name: "SessionStart" });
    expect(outcome).to.include({ decision: "none", blocked: false });
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["error", "error", "success"]);
  });

  describe("through the CLI: the exit status of `qhooks run`", () => {
    it("exits 2 with the reason on stderr for an exit-2 hook on each blockable event, 0 on the others", async () => {
      const results = await Promise.all(
        EXIT2_DECISION.map(async ([event, blockDecision]) => {
          const file = sb.file(
            `settings-${event}.json`,
            settingsFor(
              event,
              hookCommand(sb, { stdout: "out\n", stderr: `reason for ${event}\n`, exit: 2 }),
              hookCommand(sb, { exit: 0 }),
              hookCommand(sb, { stderr: "boom\n", exit: 1 }),
            ),
          );
          const r = await sb.runEvent(event, payloadFor(event), ["--settings", file, "--no-log"]);
          return { event, blockDecision, r };
        }),
      );
      for (const { event, blockDecision, r } of results) {
        const outcomes = (r.outcome!.hooks as { outcome: string }[]).map((h) => h.outcome);
        if (blockDecision !== null) {
          expect(r.code, event).to.equal(2);
          expect(withoutWarnings(r.stderr).trim(), event).to.equal(`reason for ${event}`);
          expect(r.outcome, event).to.include({ decision: blockDecision, blocked: true, reason: `reason for ${event}` });
          expect(outcomes, event).to.deep.equal(["block", "success", "error"]);
        } else {
          expect(r.code, event).to.equal(0);
          expect(r.outcome, event).to.include({ decision: "none", blocked: false });
          expect(outcomes, event).to.deep.equal(["error", "success", "error"]);
        }
      }
    });

    it("exits 0 on blockable events when hooks succeed or fail with statuses other than 2", async () => {
      // The exit status depends on the outcome only, which the bus tests above check on every event.
      const blockable = ["PreToolUse", "PermissionRequest", "Stop"];
      const results = await Promise.all(
        blockable.map(async (event) => {
          const file = sb.file(
            `settings-ok-${event}.json`,
            settingsFor(event, hookCommand(sb, { exit: 0 }), hookCommand(sb, { stderr: "boom\n", exit: 1 }), hookCommand(sb, { exit: 7 })),
          );
          return { event, r: await sb.runEvent(event, payloadFor(event), ["--settings", file, "--no-log"]) };
        }),
      );
      for (const { event, r } of results) {
        expect(r.code, `${event}: ${r.stderr}`).to.equal(0);
        expect(r.outcome, event).to.include({ event, decision: "none", blocked: false });
        expect(
          (r.outcome!.hooks as { outcome: string }[]).map((h) => h.outcome),
          event,
        ).to.deep.equal(["success", "error", "error"]);
      }
    });
  });
});
