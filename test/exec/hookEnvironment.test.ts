import { expect } from "chai";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { firstValueFrom } from "rxjs";
import { CappedOutput } from "../../src/exec/cappedOutput.js";
import { CALL_CHAIN_VAR, chainEntry } from "../../src/exec/hookEnvironment.js";
import { spawnHook } from "../../src/exec/spawnHook.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/** What a hook sees: stdin, environment, working directory, HOME (contract 3 and 8). */
describe("the hook's environment", () => {
  let sb: Sandbox;
  let dump: string;

  beforeEach(() => {
    sb = new Sandbox();
    // Writes what the hook saw next to the path given as $1.
    dump = sb.script("dump.sh", 'cat > "$1.stdin"\npwd -P > "$1.cwd"\nenv -0 > "$1.env"\necho dumped');
  });
  afterEach(() => sb.cleanup());

  function seen(prefix: string) {
    const env: Record<string, string> = {};
    for (const entry of readFileSync(`${prefix}.env`, "utf8").split("\0")) {
      const eq = entry.indexOf("=");
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return { stdin: readFileSync(`${prefix}.stdin`, "utf8"), cwd: readFileSync(`${prefix}.cwd`, "utf8").trim(), env };
  }

  const pre = (extra: Json = {}) => ({ hook_event_name: "PreToolUse", ...payloadFor("PreToolUse", extra) });

  it("through the bus: payload on stdin, project dir as cwd and in both project variables, event, session, HOME, call chain", async () => {
    const out = join(sb.root, "seen");
    const command = `${dump} ${out}`;
    sb.projectSettings({ hooks: { PreToolUse: [group("Bash", command)] } });
    const bus = sb.bus({ env: { ...sb.env(), HOME: "/nonexistent/parent-home", QHOOKS_REPLAY: "1", FROM_PARENT: "kept" } });
    const payload = pre({ session_id: "sess-42", extra_field: { nested: ["x", 1] } });
    const outcome = await bus.dispatch(payload);
    expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["success"]);

    const s = seen(out);
    expect(JSON.parse(s.stdin)).to.deep.equal({ ...payload, cwd: sb.project });
    expect(s.cwd).to.equal(realpathSync(sb.project));
    expect(s.env).to.include({
      QODERCN_PROJECT_DIR: sb.project,
      CLAUDE_PROJECT_DIR: sb.project,
      QHOOKS_EVENT: "PreToolUse",
      QHOOKS_SESSION_ID: "sess-42",
      HOME: sb.home,
      FROM_PARENT: "kept",
      [CALL_CHAIN_VAR]: chainEntry("PreToolUse", command),
    });
    expect(s.env.QHOOKS_REPLAY, "a live dispatch is not a replay").to.equal(undefined);
    expect(sb.project.startsWith("/")).to.equal(true);
  });

  it("the bus's env option is the whole parent environment: nothing leaks in from process.env", async () => {
    const out = join(sb.root, "seen");
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `${dump} ${out}`)] } });
    process.env.QHOOKS_TEST_SHOULD_NOT_LEAK = "leaked";
    try {
      await sb.bus({ env: { PATH: process.env.PATH } }).dispatch(pre());
    } finally {
      delete process.env.QHOOKS_TEST_SHOULD_NOT_LEAK;
    }
    expect(seen(out).env.QHOOKS_TEST_SHOULD_NOT_LEAK).to.equal(undefined);
  });

  it("expands ~ in a command to the bus's homeDir, not the parent's HOME", async () => {
    sb.file(join(sb.home, "bin", "where.sh"), '#!/bin/sh\necho "home hook ran with HOME=$HOME"\n', 0o755);
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "~/bin/where.sh")] } });
    const outcome = await sb.bus({ env: { ...sb.env(), HOME: "/nonexistent/parent-home" } }).dispatch(pre());
    expect(outcome.hooks[0]).to.include({ outcome: "success", stdout: `home hook ran with HOME=${sb.home}\n` });
  });

  it("through the CLI: a relative --project-dir is made absolute; ~ is the CLI's HOME; the call chain extends the caller's", async () => {
    const out = join(sb.root, "seen");
    sb.file(join(sb.home, "bin", "dump.sh"), readFileSync(dump, "utf8"), 0o755);
    sb.projectSettings({ hooks: { PreToolUse: [group(undefined, `~/bin/dump.sh ${out}`)] } });
    const r = await sb.run(["run", "PreToolUse", "--no-log", "--project-dir", "project"], {
      cwd: sb.root,
      input: JSON.stringify(payloadFor("PreToolUse", { session_id: "cli-1" })),
      env: { [CALL_CHAIN_VAR]: "Stop:0123456789abcdef" },
    });
    expect(r.code, r.stderr).to.equal(0);
    const s = seen(out);
    expect(s.cwd).to.equal(realpathSync(sb.project));
    expect(s.env).to.include({
      QODERCN_PROJECT_DIR: sb.project,
      CLAUDE_PROJECT_DIR: sb.project,
      QHOOKS_EVENT: "PreToolUse",
      QHOOKS_SESSION_ID: "cli-1",
      HOME: sb.home,
      [CALL_CHAIN_VAR]: `Stop:0123456789abcdef ${chainEntry("PreToolUse", `~/bin/dump.sh ${out}`)}`,
    });
    expect(JSON.parse(s.stdin)).to.deep.include({ session_id: "cli-1", hook_event_name: "PreToolUse", cwd: sb.project });
  });

  describe("a 1 MB payload with emoji and CJK", () => {
    const blob = "😀🎉中文日本語".repeat(50_000);

    it("through the bus: a hook that never reads stdin succeeds, and its sibling that reads it gets every character", async () => {
      expect(Buffer.byteLength(blob)).to.be.above(1024 * 1024);
      const out = join(sb.root, "seen");
      sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "echo ignored-stdin", "exec 0<&-; echo closed-stdin", `${dump} ${out}`)] } });
      const outcome = await sb.bus().dispatch(pre({ tool_input: { command: "ls", blob } }));
      expect(outcome.hooks.map((h) => [h.outcome, h.stdout, h.stderr])).to.deep.equal([
        ["success", "ignored-stdin\n", ""],
        ["success", "closed-stdin\n", ""],
        ["success", "dumped\n", ""],
      ]);
      expect((JSON.parse(seen(out).stdin) as { tool_input: { blob: string } }).tool_input.blob).to.equal(blob);
    });

    it("through the CLI: same, and the CLI exits 0", async () => {
      const out = join(sb.root, "seen");
      sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "echo ignored-stdin", `${dump} ${out}`)] } });
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { command: "ls", blob } }), ["--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      expect((r.outcome!.hooks as Json[]).map((h) => h.outcome)).to.deep.equal(["success", "success"]);
      expect((JSON.parse(seen(out).stdin) as { tool_input: { blob: string } }).tool_input.blob).to.equal(blob);
    });
  });

  describe("bash does not source ~/.bashrc for hooks (the SHLVL trick)", () => {
    let marker: string;
    let bashHome: string;

    beforeEach(() => {
      marker = join(sb.root, "bashrc-was-sourced");
      bashHome = join(sb.root, "bash-home");
      mkdirSync(bashHome);
      sb.file(join(bashHome, ".bashrc"), `echo sourced >> ${marker}\n`);
      sb.file(join(bashHome, ".bash_profile"), `echo sourced >> ${marker}\n`);
    });

    it("control: on this machine, `bash -c` on a socket stdin without SHLVL does source ~/.bashrc", async () => {
      // Without this, the tests below could pass on a bash that never reads rc files, proving nothing.
      await firstValueFrom(
        spawnHook({
          command: "bash -c true",
          cwd: sb.project,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: bashHome },
          input: "{}",
          stdout: new CappedOutput(1024),
          stderr: new CappedOutput(1024),
        }),
      );
      expect(existsSync(marker)).to.equal(true);
    });

    for (const [label, shlvl] of [
      ["no SHLVL", undefined],
      ["SHLVL=0", "0"],
      ["an empty SHLVL", ""],
      ["a garbage SHLVL", "x"],
      ["SHLVL=1.5 (bash reads a level that is not a whole number as 0)", "1.5"],
      ["SHLVL=0x1", "0x1"],
      ["SHLVL=999 (bash resets a level of 1000 or more to 1)", "999"],
    ] as const) {
      it(`neither \`bash -c 'true'\` nor a #!/bin/bash script sources it when the parent env has ${label}`, async () => {
        const script = sb.script("bash-hook.sh", "#!/bin/bash\ntrue\n");
        sb.projectSettings({ hooks: { PreToolUse: [group(undefined, "bash -c 'true'", script, "bash -c 'echo $SHLVL'")] } });
        const env: Record<string, string | undefined> = { PATH: process.env.PATH, LANG: "C.UTF-8" };
        if (shlvl !== undefined) env.SHLVL = shlvl;
        const outcome = await sb.bus({ homeDir: bashHome, env }).dispatch(pre());
        expect(outcome.hooks.map((h) => h.outcome)).to.deep.equal(["success", "success", "success"]);
        expect(existsSync(marker), "~/.bashrc was sourced").to.equal(false);
        expect(Number(outcome.hooks[2]!.stdout.trim())).to.be.at.least(2);
      });
    }

    it("keeps a SHLVL the parent already has", async () => {
      sb.projectSettings({ hooks: { PreToolUse: [group(undefined, 'echo "$SHLVL"')] } });
      const outcome = await sb.bus({ env: { PATH: process.env.PATH, SHLVL: "3" } }).dispatch(pre());
      expect(outcome.hooks[0]!.stdout).to.equal("3\n");
    });
  });
});
