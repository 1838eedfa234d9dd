import { expect } from "chai";
import { claudeHost } from "../../src/hosts/claude.js";
import type { EventName } from "../../src/schema/events.js";
import { HOOK_OUTPUT_SCHEMAS } from "../../src/schema/hookOutput.js";
import { httpAnswer } from "../../src/server/httpAnswer.js";
import { settingsFor, type Json } from "../decisions/helpers.js";
import { Sandbox, payloadFor } from "../support/sandbox.js";

/**
 * The HTTP answer of an outcome: what `--format hook` prints on stdout as a 200 body, and a block said by exit 2
 * in its JSON form, valid hook output of the event (HOOK_OUTPUT_SCHEMAS); 409 where the event has no JSON block.
 */
describe("qhooks serve: the HTTP answer of an outcome", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  async function answer(event: string, ...commands: (string | Json)[]) {
    const settings = sb.file(`s-${event}-${Math.random().toString(36).slice(2)}.json`, settingsFor(event, ...commands));
    const outcome = await sb.bus({ watch: false, settingsFiles: [settings] }).dispatch({ ...payloadFor(event), hook_event_name: event });
    const reply = claudeHost.answer(outcome);
    const http = httpAnswer(claudeHost, outcome);
    if (http.status === 200 && http.body !== "") {
      const check = HOOK_OUTPUT_SCHEMAS[event as EventName].safeParse(JSON.parse(http.body));
      expect(check.success, `valid ${event} hook output: ${http.body}`).to.equal(true);
    }
    return { reply, http, body: http.body === "" || http.status !== 200 ? null : (JSON.parse(http.body) as Json) };
  }
  const block = "echo 'not now' >&2; exit 2";

  const cases: [string, Json][] = [
    ["PreToolUse", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "not now" } }],
    ["PreModelSwitch", { hookSpecificOutput: { hookEventName: "PreModelSwitch", permissionDecision: "deny", permissionDecisionReason: "not now" } }],
    ["Stop", { decision: "block", reason: "not now" }],
    ["SubagentStop", { decision: "block", reason: "not now" }],
    ["PostToolUse", { decision: "block", reason: "not now" }],
    ["UserPromptSubmit", { decision: "block", reason: "not now" }],
  ];
  for (const [event, expected] of cases) {
    it(`${event}: run's exit 2 becomes ${JSON.stringify(expected)}`, async () => {
      const { reply, http, body } = await answer(event, block);
      expect(reply.exitCode, "run would exit 2").to.equal(2);
      expect(http.status).to.equal(200);
      expect(body).to.deep.equal(expected);
    });
  }

  it("PermissionRequest: the denial run already says in JSON, byte for byte", async () => {
    const { reply, http } = await answer("PermissionRequest", block);
    expect(http.status).to.equal(200);
    expect(http.body).to.equal(reply.stdout);
    expect(JSON.parse(http.body).hookSpecificOutput.decision.behavior).to.equal("deny");
  });

  for (const event of ["TaskCompleted", "TeammateIdle", "Elicitation", "WorktreeCreate"]) {
    it(`${event}: no JSON block exists, so a 409 with the reason (a failed hook for the host)`, async () => {
      const { http } = await answer(event, block);
      expect(http.status).to.equal(409);
      expect(http.body).to.equal("not now\n");
    });
  }

  it("WorktreeCreate: the path a hook prints goes out as hookSpecificOutput.worktreePath", async () => {
    const { reply, body } = await answer("WorktreeCreate", "cat >/dev/null; echo /tmp/wt/bold-oak");
    expect(reply.stdout).to.equal("/tmp/wt/bold-oak");
    expect(body).to.deep.equal({ hookSpecificOutput: { hookEventName: "WorktreeCreate", worktreePath: "/tmp/wt/bold-oak" } });
  });

  it("nothing to say is an empty 200; a JSON answer is run's stdout as is", async () => {
    expect((await answer("Notification", "true")).http).to.deep.include({ status: 200, body: "" });
    const { reply, http } = await answer(
      "PreToolUse",
      `cat >/dev/null; echo '{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}'`,
    );
    expect(http.body).to.equal(reply.stdout);
    expect(JSON.parse(http.body).systemMessage).to.equal("careful");
  });
});
