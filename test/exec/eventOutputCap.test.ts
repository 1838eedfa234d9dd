import { expect } from "chai";
import { CappedOutput, DEFAULT_MAX_EVENT_OUTPUT_BYTES, MAX_RESERVED_HEAD_BYTES, MIN_RESERVED_HEAD_BYTES, OutputBudget } from "../../src/exec/cappedOutput.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";
import { settings, warningLines } from "../settings/support.js";

type Json = Record<string, unknown>;
const MiB = 1024 * 1024;

/** A hook printing `bytes` of `char` on stdout and on stderr, then exiting 0. */
const flood = (i: number, bytes = MiB) =>
  ({ type: "command", command: `head -c ${bytes} /dev/zero | tr '\\0' a; head -c ${bytes} /dev/zero | tr '\\0' b >&2 # flood ${i}` }) as const;
/** A guard that waits for the floods, then denies in JSON on stdout (exit 0): its decision lives in its output. */
const jsonGuard = {
  type: "command",
  name: "json-guard",
  command: `sleep 0.5; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json guard says no"}}'`,
} as const;
const exitGuard = { type: "command", name: "exit-guard", command: "sleep 0.5; echo 'exit guard says no' >&2; exit 2" } as const;

const keptBytes = (outcome: { hooks: Json[] }) =>
  outcome.hooks.reduce((sum, h) => sum + Buffer.byteLength(h.stdout as string) + Buffer.byteLength(h.stderr as string), 0);

/**
 * The per-hook cap (QHOOKS_MAX_OUTPUT) bounded each stream, not the event: a hundred hooks at the cap made the
 * outcome too long to serialise and lost every decision. The hooks of one event now keep at most
 * QHOOKS_MAX_EVENT_OUTPUT in all, and each stream's first bytes are kept whatever its siblings print, so that a
 * decision printed there survives.
 */
describe("total output kept per event", () => {
  describe("OutputBudget with CappedOutput", () => {
    it("each stream keeps its reserved head; what is past the heads is shared first come, first served", () => {
      const budget = new OutputBudget(100_000, 4);
      expect(budget.reserve).to.equal(12_500);
      const [a, b, c, d] = [0, 1, 2, 3].map(() => new CappedOutput(MiB, budget));
      a!.push(Buffer.alloc(70_000, "a")); // 12,500 reserved + 50,000 shared: the whole pool
      b!.push(Buffer.alloc(70_000, "b")); // its head only
      c!.push(Buffer.alloc(100, "c"));
      d!.push(Buffer.alloc(12_500, "d"));
      expect([a, b, c, d].map((o) => o!.text().length)).to.deep.equal([62_500, 12_500, 100, 12_500]);
      expect([a, b, c, d].map((o) => o!.truncated)).to.deep.equal([true, true, false, false]);
      expect(a!.cutByCap, "cut by the event, not by its own cap").to.equal(false);
      expect(budget.cutStreams).to.have.length(2);
      // Once cut, a stream keeps nothing more, so what it kept is always a head.
      c!.push(Buffer.alloc(20_000, "c"));
      expect(c!.text()).to.equal("c".repeat(12_500));
    });

    it("the head is at most 64 KiB and at least 4 KiB however many streams share the total", () => {
      expect(new OutputBudget(DEFAULT_MAX_EVENT_OUTPUT_BYTES, 2).reserve).to.equal(MAX_RESERVED_HEAD_BYTES);
      expect(new OutputBudget(DEFAULT_MAX_EVENT_OUTPUT_BYTES, 100_000).reserve).to.equal(MIN_RESERVED_HEAD_BYTES);
      expect(new OutputBudget(0, 10).reserve).to.equal(MIN_RESERVED_HEAD_BYTES);
    });

    it("a stream's own cap still applies first, and is told apart from the event's", () => {
      const budget = new OutputBudget(MiB, 2);
      const small = new CappedOutput(10, budget);
      small.push(Buffer.from("0123456789abc"));
      expect([small.text(), small.cutByCap, budget.cutStreams.length]).to.deep.equal(["0123456789", true, 0]);
    });
  });

  describe("through the CLI and the bus", () => {
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    it(`12 hooks flooding 1 MiB on each stream and two guards: the blocks stand, at most ${DEFAULT_MAX_EVENT_OUTPUT_BYTES} bytes are kept, one warning`, async () => {
      const floods = Array.from({ length: 12 }, (_, i) => flood(i));
      sb.projectSettings(settings({ PreToolUse: [{ hooks: [...floods, jsonGuard, exitGuard] }] }));
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      expect(r.code, r.stderr.slice(0, 1000)).to.equal(2);
      const outcome = r.outcome as { decision: string; reason: string; seq: number | null; hooks: Json[] };
      expect(outcome.decision).to.equal("deny");
      expect(outcome.reason).to.include("json guard says no").and.include("exit guard says no");
      expect(outcome.seq, "logged").to.be.a("number");
      expect(outcome.hooks.slice(-2).map((h) => [h.name, h.outcome, h.truncated])).to.deep.equal([
        ["json-guard", "block", false],
        ["exit-guard", "block", false],
      ]);
      expect(keptBytes(outcome)).to.be.at.most(DEFAULT_MAX_EVENT_OUTPUT_BYTES);
      const eventLines = warningLines(r.stderr).filter((w) => w.includes("QHOOKS_MAX_EVENT_OUTPUT"));
      expect(eventLines).to.have.length(1);
      expect(eventLines[0]).to.match(
        /^the hooks of this event printed more than the 4194304 bytes an event keeps \(QHOOKS_MAX_EVENT_OUTPUT\): \d+ bytes of \d+ streams dropped/,
      );
      const v = await sb.run(["verify"]);
      expect(v.code, v.stderr).to.equal(0);
    });

    it("QHOOKS_MAX_EVENT_OUTPUT sets the total (bus env); a decision printed after the total is used up still counts", async () => {
      const floods = Array.from({ length: 3 }, (_, i) => flood(i, 200_000));
      sb.projectSettings(settings({ PreToolUse: [{ hooks: [...floods, jsonGuard] }] }));
      const bus = sb.bus({ env: sb.env({ QHOOKS_MAX_EVENT_OUTPUT: "100000" }) });
      const outcome = await bus.dispatch({ ...payloadFor("PreToolUse"), hook_event_name: "PreToolUse" });
      expect(outcome.decision).to.equal("deny");
      expect(keptBytes(outcome as unknown as { hooks: Json[] })).to.be.at.most(100_000);
      expect(outcome.hooks.slice(0, 3).every((h) => h.truncated)).to.equal(true);
      expect(outcome.warnings.filter((w) => w.includes("QHOOKS_MAX_EVENT_OUTPUT"))).to.have.length(1);
    });

    it("a QHOOKS_MAX_EVENT_OUTPUT that is not a whole number is one warning, and the default applies", async () => {
      sb.projectSettings(settings({ PreToolUse: [{ hooks: [{ type: "command", command: "echo hi" }] }] }));
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], { QHOOKS_MAX_EVENT_OUTPUT: "lots" });
      expect(r.code).to.equal(0);
      expect(warningLines(r.stderr)).to.deep.equal([`QHOOKS_MAX_EVENT_OUTPUT=lots is not a whole number >= 0; using ${DEFAULT_MAX_EVENT_OUTPUT_BYTES}`]);
    });
  });
});
