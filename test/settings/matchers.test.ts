import { expect } from "chai";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";
import { markSet, mark, settings, warningLines } from "./support.js";

type Json = Record<string, unknown>;

/**
 * Contract 2.2 end to end: real settings files, `qhooks run` as a real process, and hooks that leave a mark. Each
 * run uses its own session id, so runs go in parallel and each one's marks stay apart.
 */
describe("matchers through qhooks run", () => {
  let sb: Sandbox;
  afterEach(() => sb.cleanup());

  /** Runs one event per [session, payload] in parallel; returns each run's marks, sorted. */
  async function runAll(event: string, cases: Record<string, Json>) {
    const results = await Promise.all(
      Object.entries(cases).map(async ([session, extra]) => {
        const r = await sb.runEvent(event, payloadFor(event, { ...extra, session_id: session }));
        expect(r.code, `${session}: ${r.stderr}`).to.equal(0);
        return [session, { marks: markSet(sb, session), stderr: r.stderr }] as const;
      }),
    );
    return Object.fromEntries(results);
  }

  describe("tool-name matchers (PreToolUse)", () => {
    beforeEach(() => {
      sb = new Sandbox();
      sb.projectSettings(
        settings({
          PreToolUse: [
            group(undefined, mark(sb, "no-matcher")),
            group("", mark(sb, "empty")),
            group("   ", mark(sb, "blank")),
            group("*", mark(sb, "star")),
            group("Write|Edit", mark(sb, "pipe-list")),
            group("Write, Edit", mark(sb, "comma-list")),
            group("Write\\|Edit", mark(sb, "seed-table")),
            group("mcp__.*", mark(sb, "mcp-regex")),
            group("^Edit$", mark(sb, "anchored")),
            group("bash", mark(sb, "lowercase")),
            group("mcp__(github|gitlab)__.*", mark(sb, "alternation")),
            group("(a+)+$", mark(sb, "nested-repeat")),
            group("Bash(", mark(sb, "invalid")),
          ],
        }),
      );
    });

    const ALL = ["blank", "empty", "no-matcher", "star"];
    const expectMarks = (got: string[], ...extra: string[]) => expect(got).to.deep.equal([...ALL, ...extra].sort());

    it("selects exactly the matching groups for each tool name", async () => {
      const r = await runAll("PreToolUse", {
        bash: { tool_name: "Bash" },
        write: { tool_name: "Write", tool_input: { file_path: "/tmp/x" } },
        edit: { tool_name: "Edit", tool_input: { file_path: "/tmp/x" } },
        notebook: { tool_name: "NotebookEdit", tool_input: {} },
        github: { tool_name: "mcp__github__create_issue", tool_input: {} },
        slack: { tool_name: "mcp__slack__post", tool_input: {} },
        // (a+)+$, which backtracks for minutes in JavaScript on a near miss, runs in linear time and matches this one.
        llama: { tool_name: "Llama", tool_input: {} },
      });
      // Case-sensitive: the lower-case "bash" group never runs for Bash.
      expectMarks(r.bash!.marks);
      expectMarks(r.write!.marks, "comma-list", "pipe-list", "seed-table");
      expectMarks(r.edit!.marks, "anchored", "comma-list", "pipe-list", "seed-table");
      // Exact names and an anchored regex: NotebookEdit is neither Edit nor Write|Edit.
      expectMarks(r.notebook!.marks);
      // Unanchored regex: mcp__.* matches every MCP tool; the alternation only its two servers.
      expectMarks(r.github!.marks, "alternation", "mcp-regex");
      expectMarks(r.slack!.marks, "mcp-regex");
      expectMarks(r.llama!.marks, "nested-repeat");
    });

    it("warns, on every run, about the seed-table matcher and the invalid regex, and nothing else", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_name: "Write", tool_input: {} }));
      const warnings = warningLines(r.stderr);
      expect(warnings).to.have.length(2, warnings.join("\n"));
      expect(warnings[0]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[6\]\.matcher: matcher "Write\\\|Edit" read as "Write\|Edit"/);
      expect(warnings[1]).to.match(/^\.qoder\/settings\.json: hooks\.PreToolUse\[12\]\.matcher: invalid regex/);
    });
  });

  describe("events whose matcher is ignored", () => {
    beforeEach(() => {
      sb = new Sandbox();
      sb.projectSettings(
        settings({
          UserPromptSubmit: [group("NeverAToolName", mark(sb, "prompt-matcher")), group(undefined, mark(sb, "prompt-plain"))],
          Stop: [group("^$", mark(sb, "stop-matcher")), group("Write|Edit", mark(sb, "stop-names"))],
        }),
      );
    });

    it("UserPromptSubmit and Stop run every group, whatever its matcher says", async () => {
      const [prompt, stop] = await Promise.all([
        sb.runEvent("UserPromptSubmit", payloadFor("UserPromptSubmit", { session_id: "prompt" })),
        sb.runEvent("Stop", payloadFor("Stop", { session_id: "stop" })),
      ]);
      expect(prompt.code, prompt.stderr).to.equal(0);
      expect(stop.code, stop.stderr).to.equal(0);
      expect(markSet(sb, "prompt")).to.deep.equal(["prompt-matcher", "prompt-plain"]);
      expect(markSet(sb, "stop")).to.deep.equal(["stop-matcher", "stop-names"]);
    });
  });

  describe("per-event match fields", () => {
    beforeEach(() => {
      sb = new Sandbox();
      sb.projectSettings(
        settings({
          SubagentStop: [group("review", mark(sb, "subagent-stop-review")), group("^$", mark(sb, "subagent-stop-empty"))],
          SubagentStart: [group("Explore|Plan", mark(sb, "subagent-start-explore"))],
          SessionStart: [group("resume", mark(sb, "session-start-resume")), group("startup|clear", mark(sb, "session-start-fresh"))],
          SessionEnd: [group("logout", mark(sb, "session-end-logout"))],
          PreCompact: [group("auto", mark(sb, "precompact-auto")), group("manual", mark(sb, "precompact-manual"))],
          Notification: [
            group("^$", mark(sb, "notification-none")),
            group("permission_prompt", mark(sb, "notification-permission")),
            group("idle.*", mark(sb, "notification-idle")),
          ],
        }),
      );
    });

    it("SubagentStop and SubagentStart match agent_type", async () => {
      const stop = await runAll("SubagentStop", { "ss-review": { agent_type: "review" }, "ss-task": { agent_type: "task" } });
      expect(stop["ss-review"]!.marks).to.deep.equal(["subagent-stop-review"]);
      expect(stop["ss-task"]!.marks).to.deep.equal([]);
      const start = await runAll("SubagentStart", { "sa-plan": { agent_type: "Plan" }, "sa-task": { agent_type: "task" } });
      expect(start["sa-plan"]!.marks).to.deep.equal(["subagent-start-explore"]);
      expect(start["sa-task"]!.marks).to.deep.equal([]);
    });

    it("SessionStart matches source, SessionEnd reason, PreCompact trigger", async () => {
      const [start, end, compact] = await Promise.all([
        runAll("SessionStart", { "st-resume": { source: "resume" }, "st-compact": { source: "compact" } }),
        runAll("SessionEnd", { "se-logout": { reason: "logout" }, "se-other": { reason: "other" } }),
        runAll("PreCompact", { "pc-auto": { trigger: "auto" }, "pc-manual": { trigger: "manual" } }),
      ]);
      expect(start["st-resume"]!.marks).to.deep.equal(["session-start-resume"]);
      expect(start["st-compact"]!.marks).to.deep.equal([]);
      expect(end["se-logout"]!.marks).to.deep.equal(["session-end-logout"]);
      expect(end["se-other"]!.marks).to.deep.equal([]);
      expect(compact["pc-auto"]!.marks).to.deep.equal(["precompact-auto"]);
      expect(compact["pc-manual"]!.marks).to.deep.equal(["precompact-manual"]);
    });

    it("Notification matches notification_type; a missing one is matched as the empty string", async () => {
      const base = { message: "hi" };
      const r = await runAll("Notification", {
        "n-missing": { ...base, notification_type: undefined },
        "n-permission": { ...base, notification_type: "permission_prompt" },
        "n-idle": { ...base, notification_type: "idle_prompt" },
      });
      // JSON.stringify drops the undefined field: the payload really has no notification_type.
      expect(r["n-missing"]!.marks).to.deep.equal(["notification-none"]);
      expect(r["n-permission"]!.marks).to.deep.equal(["notification-permission"]);
      expect(r["n-idle"]!.marks).to.deep.equal(["notification-idle"]);
    });
  });
});
