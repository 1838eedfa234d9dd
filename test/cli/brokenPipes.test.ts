import { expect } from "chai";
import { closeSync, openSync } from "node:fs";
import { MAX_PAYLOAD_BYTES } from "../../src/payload/parsePayload.js";
import { runHostile } from "../support/hostileCli.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { logJson, qhooksLines } from "../store/storeHelpers.js";

/**
 * The exit status of `qhooks run` is the decision, whatever happens to its output pipes: an agent that stops reading
 * stdout (or stderr) must still see a block as exit 2, never as the 0 that lets the tool call through. And stdin is
 * read up to the payload limit, never further, however long the writer goes on.
 */
describe("CLI: broken output pipes and endless stdin", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", "echo 'guard: no' >&2; exit 2")] } });
  });
  afterEach(() => sb.cleanup());

  const rm = () => JSON.stringify(payloadFor("PreToolUse", { tool_input: { command: "rm -rf /" } }));
  const read = () => JSON.stringify(payloadFor("PreToolUse", { tool_name: "Read" }));

  for (const [what, closed] of [
    ["stdout", { closeStdout: true }],
    ["stderr", { closeStderr: true }],
    ["stdout and stderr", { closeStdout: true, closeStderr: true }],
  ] as const) {
    it(`a block exits 2 when the reader of ${what} has gone, and the log says deny`, async () => {
      const r = await runHostile(sb, ["run", "PreToolUse"], { stdin: rm(), deadlineMs: 15_000, ...closed });
      expect([r.hung, r.signal, r.code], r.stderr).to.deep.equal([false, null, 2]);
      const [record] = await logJson(sb);
      expect(record).to.include({ decision: "deny", blocked: true });
    });

    it(`no block exits 0 when the reader of ${what} has gone`, async () => {
      const r = await runHostile(sb, ["run", "PreToolUse"], { stdin: read(), deadlineMs: 15_000, ...closed });
      expect([r.hung, r.signal, r.code], r.stderr).to.deep.equal([false, null, 0]);
    });
  }

  it("--format hook: a block carried in the JSON reply turns into exit 2 with its reason when stdout is gone", async () => {
    const stop = `printf '%s' '{"continue":false,"stopReason":"stop everything","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json says no"}}'`;
    const settingsFile = sb.file("guards.json", { hooks: { PreToolUse: [group("Bash", stop)] } });
    const args = ["run", "PreToolUse", "--format", "hook", "--settings", settingsFile];
    const open = await runHostile(sb, args, { stdin: rm(), deadlineMs: 15_000 });
    expect(open.code, "read normally: the JSON reply, exit 0").to.equal(0);
    expect(JSON.parse(open.stdout)).to.include({ continue: false });
    const gone = await runHostile(sb, args, { stdin: rm(), deadlineMs: 15_000, closeStdout: true });
    expect(gone.code, gone.stderr).to.equal(2);
    expect(gone.stderr.trim()).to.equal("json says no");
  });

  it("qhooks record still records and exits 0 with both output pipes gone", async () => {
    const r = await runHostile(sb, ["record", "Stop"], { stdin: '{"session_id":"rec"}', deadlineMs: 15_000, closeStdout: true, closeStderr: true });
    expect([r.signal, r.code]).to.deep.equal([null, 0]);
    const [record] = await logJson(sb);
    expect(record).to.include({ sessionId: "rec", decision: "recorded" });
  });

  it("a listing whose reader stops early (qhooks log | head) still exits 0", async () => {
    await sb.runEvent("PreToolUse", payloadFor("PreToolUse"));
    const r = await runHostile(sb, ["log"], { deadlineMs: 15_000, closeStdout: true });
    expect([r.hung, r.signal, r.code]).to.deep.equal([false, null, 0]);
  });

  describe("stdin past the payload limit", () => {
    const tooLarge = `qhooks: payload is larger than ${MAX_PAYLOAD_BYTES} bytes`;

    it("a writer that never stops: qhooks run answers with the limit's error, and the rejection is logged", async () => {
      const r = await runHostile(sb, ["run", "PreToolUse"], { stdin: { endless: true }, deadlineMs: 30_000 });
      expect(r.hung, "read stdin forever").to.equal(false);
      expect(r.code).to.equal(1);
      expect(qhooksLines(r.stderr)).to.deep.equal([tooLarge]);
      const [record] = await logJson(sb);
      expect(record).to.include({ decision: "rejected" });
    });

    it("stdin redirected from /dev/zero: qhooks run and qhooks record stop at the limit", async () => {
      const fd = openSync("/dev/zero", "r");
      try {
        for (const args of [
          ["run", "PreToolUse"],
          ["record", "Stop"],
        ]) {
          const r = await runHostile(sb, args, { stdin: { fd }, deadlineMs: 30_000 });
          expect(r.hung, `${args[0]} read /dev/zero forever`).to.equal(false);
          expect([r.code, qhooksLines(r.stderr)]).to.deep.equal([1, [tooLarge]]);
        }
      } finally {
        closeSync(fd);
      }
    });
  });
});
