import { expect } from "chai";
import { foldRunHistory, NO_HISTORY, type HistoryEvent } from "../../src/doctor/runHistory.js";
import { DoctorReportSchema, type DoctorFinding } from "../../src/schema/doctor.js";
import type { EventName } from "../../src/schema/events.js";
import type { HookResult } from "../../src/schema/outcome.js";
import { hookResultOf } from "../support/outcomes.js";
import { group, payloadFor, Sandbox } from "../support/sandbox.js";

const result = (over: Partial<HookResult> & Pick<HookResult, "name">): HookResult => hookResultOf(over);
const ev = (seq: number, event: EventName | null, ...hooks: HookResult[]): HistoryEvent => ({ seq, event, hooks });

describe("doctor: the guard rules read the log's history of each hook's runs", () => {
  describe("foldRunHistory", () => {
    it("counts a guard's runs that exited 1 with a deny/block message, and those that answered allow, by level and name", () => {
      const history = foldRunHistory([
        ev(3, "PreToolUse", result({ name: "g", exitCode: 1, outcome: "error", stderr: "Blocked: rm -rf is dangerous" })),
        ev(9, "Stop", result({ name: "g", exitCode: 1, outcome: "error", stderr: "refused" })),
        ev(5, "PreToolUse", result({ name: "a", decision: "allow" }), result({ name: "a", level: "project", decision: "allow" })),
        ev(6, "PermissionRequest", result({ name: "a", decision: "allow" })),
      ]);
      expect(history.events).to.equal(4);
      expect(history.of("user", "g")).to.deep.equal({ exit1Blocking: { count: 2, lastSeq: 9 }, allowed: null });
      expect(history.of("user", "a")).to.deep.equal({ exit1Blocking: null, allowed: { count: 2, lastSeq: 6 } });
      expect(history.of("project", "a")!.allowed).to.deep.equal({ count: 1, lastSeq: 5 });
      expect(history.of("project", "g")).to.equal(undefined);
    });

    it("leaves out exit 1 without a block message, exit 2, events that cannot block, allow elsewhere, and unknown events", () => {
      const history = foldRunHistory([
        ev(1, "PreToolUse", result({ name: "g", exitCode: 1, outcome: "error", stderr: "jq: command not found" })),
        ev(2, "PreToolUse", result({ name: "g", exitCode: 2, outcome: "block", decision: "deny", stderr: "Blocked" })),
        ev(3, "SessionStart", result({ name: "g", exitCode: 1, outcome: "error", stderr: "blocked" })),
        ev(4, "UserPromptSubmit", result({ name: "g", decision: "allow" })),
        ev(5, null, result({ name: "g", exitCode: 1, stderr: "blocked" })),
      ]);
      expect(history.events).to.equal(5);
      expect(history.of("user", "g")).to.equal(undefined);
      expect(NO_HISTORY.of("user", "g")).to.equal(undefined);
    });
  });

  describe("end to end: hooks run through qhooks run, then qhooks doctor", function () {
    this.timeout(60_000);
    let sb: Sandbox;
    beforeEach(() => (sb = new Sandbox()));
    afterEach(() => sb.cleanup());

    const findingsOf = async (rule: string): Promise<DoctorFinding[]> => {
      const r = await sb.run(["doctor", "--format", "json"]);
      return DoctorReportSchema.parse(JSON.parse(r.stdout)).findings.filter((f) => f.rule === rule);
    };
    // The exit code and the decision come from variables: the script's text shows neither (the static check is blind).
    const exiting = (code: number, message: string) => `#!/bin/sh\ncat >/dev/null\nmsg="${message}"\ncode=${code}\nprintf '%s\\n' "$msg" >&2\nexit $code\n`;
    const answering = (decision: string) =>
      `#!/bin/sh\ncat >/dev/null\nd=${decision}\nprintf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"%s"}}\\n' "$d"\n`;

    it("guard-exit-1: a guard whose runs exited 1 with a block message is a finding that names the runs; one that exited 2 is not", async () => {
      sb.projectSettings({
        hooks: { PreToolUse: [group("Bash", { command: sb.script("guard.sh", exiting(1, "Blocked: dangerous command")), name: "guard" })] },
      });
      expect(await findingsOf("guard-exit-1"), "the script alone shows nothing").to.deep.equal([]);
      const ran = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      expect(ran.code, ran.stderr).to.equal(0);
      const found = await findingsOf("guard-exit-1");
      expect(found).to.have.length(1);
      expect(found[0]!.message).to.match(
        /^the log has 1 run of it that exited 1 with a deny\/block message on stderr \(the newest in event #\d+\): exit 1 does not block/,
      );
      expect(found[0]!.path).to.equal("hooks.PreToolUse[0].hooks[0].command");

      // Another log, whose guard exits 2 as it should: nothing to say.
      const other = new Sandbox();
      try {
        other.projectSettings({
          hooks: { PreToolUse: [group("Bash", { command: other.script("guard.sh", exiting(2, "Blocked: dangerous command")), name: "guard" })] },
        });
        expect((await other.runEvent("PreToolUse", payloadFor("PreToolUse"))).code).to.equal(2);
        const r = await other.run(["doctor", "--format", "json"]);
        expect(DoctorReportSchema.parse(JSON.parse(r.stdout)).findings.filter((f) => f.rule === "guard-exit-1")).to.deep.equal([]);
      } finally {
        other.cleanup();
      }
    });

    it("guard-prints-allow: a guard whose runs answered allow is a finding that names the runs; one that answered ask is not", async () => {
      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sb.script("allow.sh", answering("allow")), name: "allower" })] } });
      expect(await findingsOf("guard-prints-allow"), "the script alone shows nothing").to.deep.equal([]);
      expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"))).outcome!.decision).to.equal("allow");
      const found = await findingsOf("guard-prints-allow");
      expect(found).to.have.length(1);
      expect(found[0]!.message).to.match(
        /^the log has 1 run of it that answered allow \(the newest in event #\d+\): each of those calls skipped the permission prompt$/,
      );

      sb.projectSettings({ hooks: { PreToolUse: [group("Bash", { command: sb.script("ask.sh", answering("ask")), name: "asker" })] } });
      expect((await sb.runEvent("PreToolUse", payloadFor("PreToolUse"))).outcome!.decision).to.equal("ask");
      expect(await findingsOf("guard-prints-allow")).to.deep.equal([]);
    });

    it("a script the static check catches gets the log's runs in the same finding, not a second one", async () => {
      sb.projectSettings({
        hooks: { PreToolUse: [group("Bash", { command: sb.script("g.sh", "#!/bin/sh\ncat >/dev/null\necho 'Blocked: dangerous' >&2\nexit 1\n"), name: "g" })] },
      });
      await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
      const found = await findingsOf("guard-exit-1");
      expect(found).to.have.length(1);
      expect(found[0]!.message).to.match(/exits 1 after a deny\/block message on stderr: .*; the log has 1 run of it that exited 1/);
    });
  });
});
