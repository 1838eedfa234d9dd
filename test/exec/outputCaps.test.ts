import { expect } from "chai";
import { CappedOutput, DEFAULT_MAX_OUTPUT_BYTES } from "../../src/exec/cappedOutput.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;
const MiB = 1024 * 1024;

describe("CappedOutput", () => {
  it("keeps everything up to exactly the cap, unmarked", () => {
    const out = new CappedOutput(6);
    out.push(Buffer.from("abc"));
    out.push(Buffer.from("def"));
    expect(out.text()).to.equal("abcdef");
    expect(out.truncated).to.equal(false);
    expect(out.droppedBytes).to.equal(0);
  });

  it("cuts a chunk that crosses the cap and counts every byte dropped afterwards", () => {
    const out = new CappedOutput(4);
    out.push(Buffer.from("abc"));
    out.push(Buffer.from("defg"));
    out.push(Buffer.from("hij"));
    expect(out.text()).to.equal("abcd");
    expect(out.truncated).to.equal(true);
    expect(out.droppedBytes).to.equal(6);
  });

  it("with a cap of 0 keeps nothing and marks any output as cut", () => {
    const out = new CappedOutput(0);
    out.push(Buffer.from("x"));
    expect(out.text()).to.equal("");
    expect(out.droppedBytes).to.equal(1);
    expect(out.truncated).to.equal(true);
  });

  it("turns a character cut at the cap, and bytes that are not UTF-8, into U+FFFD", () => {
    const out = new CappedOutput(5);
    out.push(Buffer.from("é😀", "utf8")); // 2 + 4 bytes: the emoji is cut after 3 of its 4
    expect(out.text()).to.equal("é\uFFFD");
    const bad = new CappedOutput(10);
    bad.push(Buffer.from([0x61, 0xff, 0x62, 0xc3]));
    expect(bad.text()).to.equal("a\uFFFDb\uFFFD");
  });

  it("defaults to 1 MiB", () => {
    expect(DEFAULT_MAX_OUTPUT_BYTES).to.equal(MiB);
  });
});

/** Contract 3 and 8: stdout and stderr are each kept up to 1 MiB (QHOOKS_MAX_OUTPUT), the rest dropped and marked. */
describe("hook output caps", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = new Sandbox();
  });
  afterEach(() => sb.cleanup());

  const pre = () => ({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse") });
  const flood = (mb: number, ch: string, fd = 1) => `head -c ${mb * MiB} /dev/zero | tr '\\0' '${ch}'${fd === 2 ? " >&2" : ""}`;

  it("through the bus: an 8 MB flood on stdout and one on stderr at once are each cut at 1 MiB, marked, and warned about", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, { command: `${flood(8, "o")} & ${flood(8, "e", 2)} & wait`, name: "flood" })] } });
    const start = performance.now();
    const outcome = await sb.bus().dispatch(pre());
    expect(performance.now() - start).to.be.below(5000);
    const h = outcome.hooks[0]!;
    expect(h).to.include({ outcome: "success", truncated: true, exitCode: 0 });
    expect(h.stdout).to.equal("o".repeat(MiB));
    expect(h.stderr).to.equal("e".repeat(MiB));
    expect(outcome.warnings).to.include.members([
      `hook flood: stdout cut at ${MiB} bytes (${7 * MiB} more dropped)`,
      `hook flood: stderr cut at ${MiB} bytes (${7 * MiB} more dropped)`,
    ]);
  });

  it("through the bus: QHOOKS_MAX_OUTPUT in the bus env sets the cap; output at exactly the cap is not marked", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "printf 12345678", "printf 123456789; printf abc >&2")] } });
    const outcome = await sb.bus({ env: { ...sb.env(), QHOOKS_MAX_OUTPUT: "8" } }).dispatch(pre());
    expect(outcome.hooks.map((h) => [h.stdout, h.stderr, h.truncated])).to.deep.equal([
      ["12345678", "", false],
      ["12345678", "abc", true],
    ]);
    expect(outcome.warnings.filter((w) => w.includes("cut at"))).to.have.length(1);
  });

  it("through the CLI: QHOOKS_MAX_OUTPUT cuts a flood, and the warning reaches stderr", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, { command: `${flood(8, "o")} & ${flood(8, "e", 2)} & wait`, name: "flood" })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], { QHOOKS_MAX_OUTPUT: "1000" });
    expect(r.code, r.stderr).to.equal(0);
    const h = (r.outcome!.hooks as Json[])[0]!;
    expect(h).to.include({ outcome: "success", truncated: true, stdout: "o".repeat(1000), stderr: "e".repeat(1000) });
    expect(r.outcome!.warnings).to.include(`hook flood: stdout cut at 1000 bytes (${8 * MiB - 1000} more dropped)`);
    expect(r.stderr).to.include("qhooks: warning: hook flood: stdout cut at 1000 bytes");
  });

  it("binary and invalid UTF-8 output never crashes the engine and comes out with U+FFFD (bus and CLI)", async () => {
    const command = "printf 'ok\\377\\376\\000bin\\300'; printf '\\200err' >&2; head -c 20000 /dev/urandom";
    sb.projectSettings({ hooks: { SessionStart: [group(undefined, command)] } });
    const outcome = await sb.bus().dispatch({ hook_event_name: "SessionStart", ...payloadFor("SessionStart") });
    const h = outcome.hooks[0]!;
    expect(h.outcome).to.equal("success");
    expect(h.stdout.startsWith("ok\uFFFD\uFFFD\u0000bin\uFFFD")).to.equal(true);
    expect(h.stderr).to.equal("\uFFFDerr");

    const r = await sb.runEvent("SessionStart", payloadFor("SessionStart"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(((r.outcome!.hooks as Json[])[0]!.stdout as string).startsWith("ok\uFFFD\uFFFD\u0000bin\uFFFD")).to.equal(true);
  });

  it("a multi-byte character cut by the cap ends in U+FFFD", async () => {
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "printf 'aé😀'")] } });
    const outcome = await sb.bus({ env: { ...sb.env(), QHOOKS_MAX_OUTPUT: "4" } }).dispatch(pre());
    expect(outcome.hooks[0]).to.include({ stdout: "aé\uFFFD", truncated: true });
  });

  it("JSON larger than the cap is invalid-output, never a decision (bus, default cap)", async () => {
    const big = `printf '{"decision":"block","reason":"'; head -c ${2 * MiB} /dev/zero | tr '\\0' x; printf '"}'`;
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, big)] } });
    const outcome = await sb.bus().dispatch(pre());
    expect(outcome).to.include({ decision: "none", blocked: false });
    expect(outcome.hooks[0]).to.include({ outcome: "invalid-output", truncated: true, decision: "none" });
    expect(outcome.hooks[0]!.error)
      .to.match(/not valid JSON/)
      .and.match(/cut at the output cap/);
  });

  it("JSON larger than the cap is invalid-output through the CLI with QHOOKS_MAX_OUTPUT", async () => {
    const json = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "x".repeat(200) } });
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `printf '%s' '${json}'`)] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"], { QHOOKS_MAX_OUTPUT: "100" });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.outcome).to.include({ decision: "none", blocked: false });
    expect((r.outcome!.hooks as Json[])[0]).to.include({ outcome: "invalid-output", truncated: true });
    // Control: the same hook with room for its JSON denies.
    const whole = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--no-log"]);
    expect(whole.code).to.equal(2);
    expect(whole.outcome).to.include({ decision: "deny", blocked: true });
  });
});
