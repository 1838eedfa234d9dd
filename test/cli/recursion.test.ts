import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, Sandbox, group, payloadFor } from "../support/sandbox.js";

/** Contract 3 and 8 ("Recursion"): a hook that calls `qhooks run` again cannot make it loop. */
describe("cli: recursion guard", () => {
  let sb: Sandbox;
  let dir: string;
  beforeEach(() => {
    sb = new Sandbox();
    dir = join(sb.root, "rec");
  });
  afterEach(() => sb.cleanup());

  const qhooks = `'${process.execPath}' '${CLI}'`;
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  const lines = (text: string) => text.split("\n").filter((l) => l !== "");
  /**
   * A brake for when the guard does not work: after 12 nested starts the script stops recursing by itself, so that a
   * failing test fails instead of forking without end.
   */
  const brake = () => `mkdir -p '${dir}'; echo x >> '${dir}/starts'; [ "$(wc -l < '${dir}/starts')" -gt 12 ] && exit 0`;

  it("refuses a nested run of the same event with the same settings: the inner run exits 1 with one warning, the outer completes", async () => {
    const settings = join(sb.root, "same.json");
    const script = sb.script(
      "again.sh",
      `${brake()}
${qhooks} run PreToolUse --settings '${settings}' --no-log > '${dir}/inner.out' 2> '${dir}/inner.err'
echo $? > '${dir}/inner.rc'
echo outer-hook-done`,
    );
    sb.file(settings, { hooks: { PreToolUse: [group("Bash", { command: script, timeout: 20 })] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.ms).to.be.lessThan(15_000);
    expect(lines(read("starts"))).to.have.length(1);
    expect(read("inner.rc").trim()).to.equal("1");
    expect(read("inner.out")).to.equal("");
    const err = lines(read("inner.err"));
    expect(err).to.have.length(1);
    expect(err[0]).to.match(/^qhooks: warning: .*recursion/);
    expect(err[0]).to.include("PreToolUse");
    const hooks = r.outcome!.hooks as { outcome: string; stdout: string }[];
    expect(hooks).to.have.length(1);
    expect(hooks[0]).to.include({ outcome: "success", stdout: "outer-hook-done\n" });
  });

  it("refuses the cycle also when the hook is found through the user settings, not --settings", async () => {
    const script = sb.script(
      "again-user.sh",
      `${brake()}
${qhooks} run Stop --no-log > '${dir}/inner.out' 2> '${dir}/inner.err'
echo $? > '${dir}/inner.rc'`,
    );
    sb.userSettings({ hooks: { Stop: [group(undefined, script)] } });
    const r = await sb.runEvent("Stop", payloadFor("Stop"), ["--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(read("inner.rc").trim()).to.equal("1");
    expect(lines(read("inner.err"))).to.have.length(1);
    expect(lines(read("starts"))).to.have.length(1);
  });

  it("refuses the cycle when the outer run is a library dispatch", async () => {
    const script = sb.script(
      "again-lib.sh",
      `${brake()}
${qhooks} run UserPromptSubmit --no-log > '${dir}/inner.out' 2> '${dir}/inner.err'
echo $? > '${dir}/inner.rc'`,
    );
    sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, script)] } });
    const outcome = await sb.bus({ watch: false }).dispatch({ ...payloadFor("UserPromptSubmit"), hook_event_name: "UserPromptSubmit" });
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["success"]);
    expect(read("inner.rc").trim()).to.equal("1");
    expect(lines(read("inner.err"))).to.have.length(1);
    expect(lines(read("starts"))).to.have.length(1);
  });

  it("refuses nesting deeper than 4 through distinct commands", async () => {
    const settings = join(sb.root, "nest.json");
    const script = sb.script(
      "nest.sh",
      `${brake()}
n=$1
next=$((n + 1))
printf '{"session_id":"s1","tool_name":"L%s","tool_input":{}}' "$next" | ${qhooks} run PreToolUse --settings '${settings}' --no-log > /dev/null 2> "${dir}/err-$n"
echo $? > "${dir}/rc-$n"`,
    );
    const groups = [1, 2, 3, 4, 5, 6, 7].map((n) => group(`L${n}`, { command: `'${script}' ${n}`, timeout: 30 }));
    sb.file(settings, { hooks: { PreToolUse: groups } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "L1" }), ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    // Runs for L2..L5 are nested 1..4 deep and run their hook; the run for L6 would be nested 5 deep.
    for (const n of [1, 2, 3, 4]) expect(read(`rc-${n}`).trim(), `run for L${n + 1}`).to.equal("0");
    expect(read("rc-5").trim(), "run for L6").to.equal("1");
    const err = lines(read("err-5"));
    expect(err).to.have.length(1);
    expect(err[0]).to.match(/^qhooks: warning: .*nested/);
    expect(existsSync(join(dir, "rc-6"))).to.equal(false);
    expect(lines(read("starts"))).to.have.length(5);
  });

  it("allows a nested run for a different event, even of the same command, and a nested run of other hooks", async () => {
    const settings = join(sb.root, "other.json");
    const otherSettings = join(sb.root, "other-hooks.json");
    const post = JSON.stringify(payloadFor("PostToolUse", { hook_event_name: "PostToolUse" }));
    const script = sb.script(
      "fanout.sh",
      `${brake()}
if [ "$QHOOKS_EVENT" = PreToolUse ]; then
  printf '%s' '${post}' | ${qhooks} run PostToolUse --settings '${settings}' --no-log > '${dir}/post.out' 2> '${dir}/post.err'
  echo $? > '${dir}/post.rc'
  cat | ${qhooks} run PreToolUse --settings '${otherSettings}' --no-log > '${dir}/pre.out' 2> '${dir}/pre.err'
  echo $? > '${dir}/pre.rc'
else
  echo "ran for $QHOOKS_EVENT" > '${dir}/post-marker'
fi`,
    );
    sb.file(settings, { hooks: { PreToolUse: [group(undefined, script)], PostToolUse: [group(undefined, script)] } });
    sb.file(otherSettings, { hooks: { PreToolUse: [group(undefined, `echo other-ran > '${dir}/other-marker'`)] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", settings, "--no-log"]);
    expect(r.code, r.stderr).to.equal(0);
    expect(read("post.rc").trim(), read("post.err")).to.equal("0");
    expect(read("post-marker")).to.equal("ran for PostToolUse\n");
    expect((JSON.parse(read("post.out")) as { hooks: { outcome: string }[] }).hooks.map((h) => h.outcome)).to.deep.equal(["success"]);
    expect(read("pre.rc").trim(), read("pre.err")).to.equal("0");
    expect(read("other-marker")).to.equal("other-ran\n");
  });
});
