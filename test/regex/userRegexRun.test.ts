import { spawn } from "node:child_process";
import { expect } from "chai";
import { CLI, Sandbox, group, payloadFor } from "../support/sandbox.js";

/** The pattern: bounded repeats that pass a syntactic check, then a character that is never there. */
const BOUNDED_REPEATS = `${"[^\\u0000]{0,16}".repeat(7)}!`;
const DEADLINE_MS = 10_000;

/** `qhooks run` as a real process, killed at the deadline (the original code spent minutes here). */
function runWithDeadline(
  sb: Sandbox,
  event: string,
  payload: unknown,
): Promise<{ code: number | null; stderr: string; stdout: string; ms: number; killed: boolean }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", event], { cwd: sb.project, env: sb.env(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, DEADLINE_MS);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(payload));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, ms: performance.now() - start, killed });
    });
  });
}

describe("user regexes under qhooks run: a bound that cannot be exceeded", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  it("a project's bounded-repeat redaction pattern and matcher no longer stall the run: the guard's exit 2 still blocks", async () => {
    const guard = sb.script("guard.sh", "cat > /dev/null\necho 'blocked by the guard' >&2\nexit 2");
    sb.projectSettings({
      qhooks: { redact: [{ pattern: BOUNDED_REPEATS, kind: "slow" }] },
      hooks: { PreToolUse: [group(BOUNDED_REPEATS, "echo never"), group("*", guard)] },
    });
    // A tool name and a command of the length the original code tested in one piece: minutes of backtracking each.
    const hostile = "a".repeat(1000);
    const r = await runWithDeadline(sb, "PreToolUse", payloadFor("PreToolUse", { tool_name: hostile, tool_input: { command: hostile } }));
    expect(r.killed, `still running after ${DEADLINE_MS} ms`).to.equal(false);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.contain("blocked by the guard");
    const logged = await sb.run(["log", "--json", "--limit", "1"]);
    const [record] = JSON.parse(logged.stdout) as { decision: string; hooks: { name: string }[] }[];
    expect(record!.hooks.map((h) => h.name)).to.deep.equal(["guard.sh"]);
  });

  it("a matcher the engine cannot run counts as matched: the hook runs, with one warning of why", async () => {
    const marker = `${sb.root}/ran`;
    sb.projectSettings({ hooks: { PreToolUse: [group("(?<!mcp__)Bash(?=$)", `cat > /dev/null; touch '${marker}'; echo 'lookaround guard' >&2; exit 2`)] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Write" }));
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.contain("lookaround guard");
    const warnings = r.stderr.split("\n").filter((l) => l.includes("cannot run in linear time"));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain("lookbehind");
    expect(warnings[0]).to.contain("this group runs for every value");
  });

  it("a redaction pattern the engine cannot run masks every string of the record: the secret it was for never reaches the log", async () => {
    sb.projectSettings({
      qhooks: { redact: [{ pattern: "(ACME)-\\1-[0-9]+", kind: "acme" }] },
      hooks: { UserPromptSubmit: [group(undefined, "cat > /dev/null")] },
    });
    const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: "ticket ACME-ACME-904211" }));
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr.split("\n").filter((l) => l.includes("every string is masked whole"))).to.have.length(1);
    const listed = await sb.run(["log", "--json", "--limit", "1"]);
    expect(listed.stdout).to.not.contain("904211");
    const [record] = JSON.parse(listed.stdout) as { payload: Record<string, string> }[];
    // Keys and values alike: what the pattern was for could be in any of them.
    for (const [key, value] of Object.entries(record!.payload)) {
      expect(key).to.match(/^\[REDACTED:acme:[0-9a-f]{8}\]$/);
      expect(value).to.match(/^\[REDACTED:acme:[0-9a-f]{8}\]$/);
    }
  });
});
