import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { codexHost } from "../../src/hosts/codex.js";
import { EVENT_TRAITS, type EventName } from "../../src/schema/events.js";
import { OutcomeSchema } from "../../src/schema/outcome.js";
import { REPO_ROOT, Sandbox } from "../support/sandbox.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "hosts", "codex");
const fixture = (event: string): string => readFileSync(join(FIXTURES, `${event}.json`), "utf8");

/** The value each fixture's matcher is tested against (its tool, trigger, source...), or none. */
const matchOf = (event: EventName): string | undefined => {
  const field = EVENT_TRAITS[event].matchField;
  const value = field === null ? undefined : (JSON.parse(fixture(event)) as Record<string, unknown>)[field];
  return typeof value === "string" ? value : undefined;
};

describe("Codex host", () => {
  let sb: Sandbox;
  beforeEach(() => (sb = new Sandbox()));
  afterEach(() => sb.cleanup());
  const projectFile = () => join(sb.project, ".codex", "hooks.json");
  const run = (event: string, format: "json" | "hook") =>
    sb.run(["run", event, "--format", format, "--dialect", "codex", "--no-log"], { input: fixture(event), cwd: sb.project });

  it("has a fixture for every event it fires, and no other", () => {
    expect(
      readdirSync(FIXTURES)
        .map((f) => f.replace(/\.json$/, ""))
        .sort(),
    ).to.deep.equal([...codexHost.events].sort());
  });

  for (const event of codexHost.events) {
    it(`${event}: its payload is judged by the project's .codex/hooks.json, the hook's matcher tested against it`, async () => {
      const matcher = matchOf(event);
      sb.file(projectFile(), {
        description: "team guards",
        hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: "cat >/dev/null; echo '{}'" }] }] },
      });
      const r = await run(event, "json");
      const outcome = OutcomeSchema.parse(JSON.parse(r.stdout));
      expect([outcome.event, outcome.hooks.map((h) => h.outcome)], r.stderr).to.deep.equal([event, ["success"]]);
    });
  }

  it("PreToolUse: a permissionDecision deny answers in Claude Code's protocol, which Codex reads", async () => {
    sb.file(projectFile(), {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force pushes"}}'`,
              },
            ],
          },
        ],
      },
    });
    const r = await run("PreToolUse", "hook");
    expect([r.code, r.stdout, r.stderr.trim()]).to.deep.equal([2, "", "no force pushes"]);
  });

  it("Stop: a block keeps the agent going, with the reason", async () => {
    sb.file(projectFile(), {
      hooks: { Stop: [{ hooks: [{ type: "command", command: `cat >/dev/null; echo '{"decision":"block","reason":"run the tests"}'` }] }] },
    });
    const r = await run("Stop", "hook");
    expect([r.code, r.stderr.trim()]).to.deep.equal([2, "run the tests"]);
  });

  it("reads the user's ~/.codex/hooks.json before the project's; its hooks get Codex's 600 s", async () => {
    sb.file(join(sb.home, ".codex", "hooks.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo user" }] }] } });
    sb.file(projectFile(), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo project", timeout: 30 }] }] } });
    const r = await sb.run(["hooks", "--dialect", "codex", "--json"], { cwd: sb.project });
    const listed = (JSON.parse(r.stdout) as { hooks: { command: string; timeoutSeconds: number }[] }).hooks;
    expect(listed.map((h) => [h.command, h.timeoutSeconds])).to.deep.equal([
      ["echo user", 600],
      ["echo project", 30],
    ]);
  });

  it("SessionEnd: 1 s when the hook names none, a longer timeout cut to Codex's 3 s with one warning; Interrupt is warned of and skipped", async () => {
    sb.file(projectFile(), {
      hooks: {
        SessionEnd: [
          {
            hooks: [
              { type: "command", command: "echo quick" },
              { type: "command", command: "echo slow", timeout: 20 },
            ],
          },
        ],
        Interrupt: [{ hooks: [{ type: "command", command: "echo interrupted" }] }],
      },
    });
    const r = await sb.run(["hooks", "--dialect", "codex", "--json"], { cwd: sb.project });
    const listed = JSON.parse(r.stdout) as { hooks: { command: string; timeoutSeconds: number; timeoutSetting: string }[]; warnings: string[] };
    // Each timeout says where it comes from: the cut one is Codex's cap, neither the file's nor the default.
    expect(listed.hooks.map((h) => [h.command, h.timeoutSeconds, h.timeoutSetting])).to.deep.equal([
      ["echo quick", 1, "host-default"],
      ["echo slow", 3, "host-cap"],
    ]);
    const table = await sb.run(["hooks", "--dialect", "codex"], { cwd: sb.project, env: { COLUMNS: "200" } });
    expect(
      table.stdout
        .split("\n")
        .filter((l) => l.includes("echo "))
        .map((l) => /\d+s(?: \([a-z ]+\))?/.exec(l)?.[0]),
    ).to.deep.equal(["1s (default)", "3s (host cap)"]);
    expect(listed.warnings).to.include.members([
      ".codex/hooks.json: hooks.SessionEnd[0].hooks[1].timeout: 20 s is more than the 3 s Codex allows on SessionEnd; cut to 3 s, as Codex does",
      ".codex/hooks.json: hooks.Interrupt: Codex event with no qhooks equivalent; its hooks are skipped",
    ]);
  });

  it("install writes SessionEnd's recorder within Codex's 3 s, the other events' with the recorder's own timeout", async () => {
    const r = await sb.run(["install", "codex"]);
    expect(r.code, r.stderr).to.equal(0);
    const hooks = (
      JSON.parse(readFileSync(join(sb.home, ".codex", "hooks.json"), "utf8")) as {
        hooks: Record<string, { hooks: { timeout: number }[] }[]>;
      }
    ).hooks;
    expect(hooks.SessionEnd![0]!.hooks[0]!.timeout).to.equal(3);
    expect(hooks.PreToolUse![0]!.hooks[0]!.timeout).to.be.greaterThan(3);
    // Read back by qhooks as Codex reads it: no warning about its own entries.
    const listed = JSON.parse((await sb.run(["hooks", "--dialect", "codex", "--json"])).stdout) as { warnings: string[] };
    expect(listed.warnings).to.deep.equal([]);
  });
});
