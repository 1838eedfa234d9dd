import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { warningLines } from "../settings/support.js";

const hex8 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 8);

/** Every byte qhooks keeps of the log: the file and its write-ahead log. */
function logBytes(db: string): string {
  return [db, `${db}-wal`]
    .filter(existsSync)
    .map((f) => readFileSync(f).toString("latin1"))
    .join("\n");
}

/**
 * Secrets never reach the log, end to end: the real binary, a real hook process that gets the payload as sent, and
 * the log file read byte for byte.
 */
describe("redaction: secrets never reach the log", function () {
  this.timeout(60_000);
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());

  const PROMPT_KEY = `sk-ant-api03-${"Zq7_".repeat(24)}`;
  const STDERR_TOKEN = `ghp_${"Rt5w".repeat(9)}`;
  const REASON_KEY = "AKIAZ7Q3EXAMPLE4KEYS";
  const USER_SECRET = "ACME-904211";

  function setUp(extraQhooks: Record<string, unknown> = {}) {
    const received = join(sb.root, "received.json");
    // The hook keeps what it was given, says a token on stderr, and blocks with another secret in its JSON reason.
    const hook = sb.script(
      "guard.sh",
      `cat > '${received}'\necho "leaked ${STDERR_TOKEN} on stderr" >&2\nprintf '%s' '{"decision":"block","reason":"found key ${REASON_KEY} in the prompt"}'\nexit 0`,
    );
    sb.userSettings({
      qhooks: { redact: [{ pattern: "ACME-[0-9]{6}", kind: "acme" }], ...extraQhooks },
      hooks: { UserPromptSubmit: [group(undefined, hook)] },
    });
    return received;
  }

  it("a secret in a prompt, in a hook's stderr and in its JSON reason: the hook and the agent get them, the log keeps markers; verify passes", async () => {
    const received = setUp();
    const prompt = `deploy with ${PROMPT_KEY} and ticket ${USER_SECRET}`;
    const payload = payloadFor("UserPromptSubmit", { prompt });
    const r = await sb.runEvent("UserPromptSubmit", payload);
    expect(r.code, r.stderr).to.equal(2);
    // The hook got the payload as sent.
    expect(JSON.parse(readFileSync(received, "utf8"))).to.deep.include({ prompt });
    // The agent gets the decision as the hook said it.
    expect(r.stderr).to.contain(REASON_KEY);

    const bytes = logBytes(sb.db);
    for (const secret of [PROMPT_KEY, STDERR_TOKEN, REASON_KEY, USER_SECRET]) expect(bytes, secret).to.not.contain(secret);

    const [record] = JSON.parse((await sb.run(["log", "--json", "--limit", "1"])).stdout) as Record<string, unknown>[];
    expect((record!.payload as { prompt: string }).prompt).to.equal(
      `deploy with [REDACTED:anthropic:${hex8(PROMPT_KEY)}] and ticket [REDACTED:acme:${hex8(USER_SECRET)}]`,
    );
    expect(record!.reason).to.equal(`found key [REDACTED:aws-access-key:${hex8(REASON_KEY)}] in the prompt`);
    const hooks = record!.hooks as { stderr: string; stdout: string }[];
    expect(hooks[0]!.stderr).to.contain(`[REDACTED:github:${hex8(STDERR_TOKEN)}]`);
    expect(hooks[0]!.stdout).to.not.contain(REASON_KEY);

    for (const format of ["table", "tsv", "json", "jsonl"]) {
      const listed = await sb.run(["log", "--format", format, "--limit", "all"]);
      expect(listed.code).to.equal(0);
      for (const secret of [PROMPT_KEY, STDERR_TOKEN, REASON_KEY, USER_SECRET]) expect(listed.stdout, `${format}: ${secret}`).to.not.contain(secret);
    }
    const verified = await sb.run(["verify"]);
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
  });

  it("the same secret gives the same marker in every record, so audits can group by it", async () => {
    setUp();
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: `one ${PROMPT_KEY}`, session_id: "a" }));
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: `two ${PROMPT_KEY}`, session_id: "b" }));
    const grep = await sb.run(["log", "--json", "--grep", `[REDACTED:anthropic:${hex8(PROMPT_KEY)}]`]);
    expect((JSON.parse(grep.stdout) as unknown[]).length).to.equal(2);
  });

  it("qhooks record and a rejected payload are redacted too", async () => {
    sb.userSettings({ qhooks: { redact: [{ pattern: "ACME-[0-9]{6}", kind: "acme" }] } });
    const rec = await sb.run(["record", "UserPromptSubmit"], {
      input: JSON.stringify(payloadFor("UserPromptSubmit", { prompt: `x ${USER_SECRET} password=hunter22` })),
    });
    expect(rec.code, rec.stderr).to.equal(0);
    const bad = await sb.run(["run", "UserPromptSubmit"], { input: `{"prompt": "${PROMPT_KEY}", broken` });
    expect(bad.code).to.equal(1);
    const bytes = logBytes(sb.db);
    for (const secret of [USER_SECRET, "hunter22", PROMPT_KEY]) expect(bytes, secret).to.not.contain(secret);
    expect((await sb.run(["verify"])).code).to.equal(0);
  });

  it("replay of a redacted event says which fields were redacted, and never prints the secret", async () => {
    setUp();
    await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: `use ${PROMPT_KEY}`, tool_input: { password: "hunter22" } }));
    const text = await sb.run(["replay", "--event", "UserPromptSubmit", "--yes"]);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout, text.stdout).to.match(/#2 UserPromptSubmit: .*\[replayed with redacted fields: prompt, tool_input\.password\]/);
    const json = await sb.run(["replay", "--event", "UserPromptSubmit", "--yes", "--json"]);
    expect(json.stdout).to.contain('"redacted":["prompt","tool_input.password"]');
    for (const out of [text.stdout + text.stderr, json.stdout + json.stderr, logBytes(sb.db)])
      expect(out).to.not.contain(PROMPT_KEY).and.not.contain("hunter22");
  });

  it("a bad pattern in the settings is one warning; the other patterns and the built-in detectors still apply", async () => {
    setUp();
    sb.userSettings({
      qhooks: {
        redact: [
          { pattern: "(unclosed", kind: "typo" },
          { pattern: "ACME-[0-9]{6}", kind: "acme" },
        ],
      },
    });
    const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: `${USER_SECRET} ${PROMPT_KEY}` }));
    expect(r.code).to.equal(0);
    const warnings = warningLines(r.stderr);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain("qhooks.redact[0].pattern").and.contain("ignored");
    const bytes = logBytes(sb.db);
    expect(bytes).to.not.contain(USER_SECRET).and.not.contain(PROMPT_KEY);
  });

  it("an async hook under qhooks run (a detached process) applies the user's patterns to its result too", async () => {
    // The async hook prints the user's secret and a built-in one; the detached process logs its result later.
    sb.userSettings({
      qhooks: { redact: [{ pattern: "ACME-[0-9]{6}", kind: "acme" }] },
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: `cat > /dev/null; echo "ticket ${USER_SECRET} key ${REASON_KEY}"`, async: true, name: "bg" }] },
        ],
      },
    });
    const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: "hello" }));
    expect(r.code, r.stderr).to.equal(0);
    let hooks: { name: string; stdout: string }[] = [];
    for (let i = 0; i < 80 && hooks.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const log = await sb.run(["log", "--json", "--limit", "1"]);
      hooks = (JSON.parse(log.stdout) as { asyncHooks: typeof hooks }[])[0]!.asyncHooks;
    }
    expect(hooks).to.have.length(1);
    expect(hooks[0]!.stdout).to.equal(`ticket [REDACTED:acme:${hex8(USER_SECRET)}] key [REDACTED:aws-access-key:${hex8(REASON_KEY)}]\n`);
    expect(logBytes(sb.db)).to.not.contain(USER_SECRET);
  });

  it("a secret that is an object key, echoed back as updatedInput, never reaches the log", async () => {
    const key = `ghp_${"K3y9".repeat(9)}`;
    const reply = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { [key]: "value" } } });
    const hook = sb.script("echo-key.sh", `cat > /dev/null\nprintf '%s' '${reply}'`);
    sb.userSettings({ hooks: { PreToolUse: [group(undefined, hook)] } });
    const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: { [key]: "value" } }));
    expect(r.code, r.stderr).to.equal(0);
    // The agent gets the input back as the hook said it.
    expect((r.outcome!.updatedInput as Record<string, unknown>)[key]).to.equal("value");
    expect(logBytes(sb.db)).to.not.contain(key);
    const [record] = JSON.parse((await sb.run(["log", "--json", "--limit", "1"])).stdout) as { updatedInput: Record<string, unknown> }[];
    expect(record!.updatedInput).to.deep.equal({ [`[REDACTED:github:${hex8(key)}]`]: "value" });
  });

  it("the match value (StopFailure's error) is redacted: qhooks log never shows the key in its match column", async () => {
    sb.userSettings({ hooks: { StopFailure: [group(undefined, "cat > /dev/null")] } });
    const error = `invalid x-api-key ${PROMPT_KEY}`;
    const r = await sb.runEvent("StopFailure", payloadFor("StopFailure", { error }));
    expect(r.code, r.stderr).to.equal(0);
    expect(logBytes(sb.db)).to.not.contain(PROMPT_KEY);
    for (const format of ["table", "tsv", "json"]) {
      const listed = await sb.run(["log", "--format", format, "--limit", "all"]);
      expect(listed.stdout, format).to.not.contain(PROMPT_KEY);
      // The table cuts its columns; the others show the whole value.
      if (format !== "table") expect(listed.stdout, format).to.contain(`[REDACTED:anthropic:${hex8(PROMPT_KEY)}]`);
    }
  });

  it("a secret a hook prints JSON-escaped (\\u0067hp_...) is found and never reaches the log", async () => {
    const body = "Rt5w".repeat(9);
    // The hook's stdout holds the token with its first letter escaped, as JSON allows; the reason decodes to it.
    const hook = sb.script("escaped.sh", `cat > /dev/null\nprintf '%s' '{"decision":"block","reason":"use \\u0067hp_${body} here"}'`);
    sb.userSettings({ hooks: { UserPromptSubmit: [group(undefined, hook)] } });
    const r = await sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { prompt: "hi" }));
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.contain(`ghp_${body}`);
    expect(logBytes(sb.db)).to.not.contain(body);
    const [record] = JSON.parse((await sb.run(["log", "--json", "--limit", "1"])).stdout) as { hooks: { stdout: string }[] }[];
    expect(record!.hooks[0]!.stdout).to.contain(`[REDACTED:github:${hex8(`ghp_${body}`)}]`);
  });
});
