import { expect } from "chai";
import { existsSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { EVENTS, captureHook, markerHook, settingsFor, type Json } from "../decisions/helpers.js";
import { Sandbox, group, payloadFor } from "../support/sandbox.js";

type Mutation = readonly [event: string, what: string, payload: Json, field: string];

const without = (event: string, ...keys: string[]): Json => {
  const p: Json = { ...payloadFor(event) };
  for (const k of keys) delete p[k];
  return p;
};
const withField = (event: string, key: string, value: unknown): Json => ({ ...payloadFor(event), [key]: value });

const TOOL_EVENTS = ["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PermissionDenied"];

/** Each event's match field: never required, type-checked when present. */
const MATCH_FIELDS: ReadonlyArray<readonly [event: string, field: string]> = [
  ...TOOL_EVENTS.map((e) => [e, "tool_name"] as const),
  ["SubagentStop", "agent_type"],
  ["SubagentStart", "agent_type"],
  ["SessionStart", "source"],
  ["SessionEnd", "reason"],
  ["PreCompact", "trigger"],
  ["Notification", "notification_type"],
  ["Setup", "trigger"],
  ["InstructionsLoaded", "load_reason"],
  ["UserPromptExpansion", "command_name"],
  ["StopFailure", "error"],
  ["ConfigChange", "source"],
  ["DirectoryAdded", "source"],
  ["FileChanged", "file_path"],
  ["PostCompact", "trigger"],
  ["PreModelSwitch", "to_model"],
  ["PostModelSwitch", "to_model"],
  ["Elicitation", "mcp_server_name"],
  ["ElicitationResult", "mcp_server_name"],
];

/** Fields every agent always sends for an event (its subject): missing or of the wrong type, the payload is rejected. */
const REQUIRED: ReadonlyArray<readonly [event: string, field: string, wrong: unknown]> = [
  ...TOOL_EVENTS.flatMap((e) => [[e, "tool_input", "ls -la"] as const]),
  ["PostToolUse", "tool_response", undefined],
  ["PostToolUseFailure", "error", { code: 1 }],
  ["UserPromptSubmit", "prompt", 42],
  ["Notification", "message", 1],
  ["InstructionsLoaded", "file_path", 3],
  ["UserPromptExpansion", "prompt", ["/deploy"]],
  ["MessageDisplay", "delta", null],
  ["PostToolBatch", "tool_calls", { tool_name: "Read" }],
  ["TaskCreated", "task_id", 1],
  ["TaskCreated", "task_subject", false],
  ["TaskCompleted", "task_id", 1],
  ["TaskCompleted", "task_subject", null],
  ["TeammateIdle", "teammate_name", 7],
  ["CwdChanged", "old_cwd", 1],
  ["CwdChanged", "new_cwd", {}],
  ["DirectoryAdded", "directory", []],
  ["WorktreeCreate", "name", 3],
  ["WorktreeRemove", "worktree_path", true],
  ["Elicitation", "message", 1],
  ["ElicitationResult", "action", 0],
];

/** Payloads that must be rejected, naming the field: a required field missing or mistyped, any field of the wrong type. */
const BAD_PAYLOADS: readonly Mutation[] = [
  ...EVENTS.flatMap((event): Mutation[] => [
    [event, "no session_id", without(event, "session_id"), "session_id"],
    [event, "an empty session_id", withField(event, "session_id", ""), "session_id"],
    [event, "a numeric session_id", withField(event, "session_id", 17), "session_id"],
    [event, "a numeric cwd", withField(event, "cwd", 5), "cwd"],
  ]),
  ...TOOL_EVENTS.flatMap((event): Mutation[] => [
    [event, "an array tool_input", withField(event, "tool_input", ["ls"]), "tool_input"],
    [event, "a null tool_input", withField(event, "tool_input", null), "tool_input"],
  ]),
  ...REQUIRED.flatMap(([event, field, wrong]): Mutation[] => [
    [event, `no ${field}`, without(event, field), field],
    ...(wrong === undefined ? [] : [[event, `a ${JSON.stringify(wrong)} ${field}`, withField(event, field, wrong), field] as Mutation]),
  ]),
  ...MATCH_FIELDS.map(([event, field]): Mutation => [event, `a numeric ${field}`, withField(event, field, 3), field]),
  ["Stop", "a string stop_hook_active", withField("Stop", "stop_hook_active", "yes"), "stop_hook_active"],
  ["SubagentStop", "a string stop_hook_active", withField("SubagentStop", "stop_hook_active", "no"), "stop_hook_active"],
];

/** Contract 2.3: what is rejected, and that nothing runs when it is. */
describe("payload: validation", () => {
  let sb: Sandbox;
  let markerDir: string;
  beforeEach(() => {
    sb = new Sandbox();
    markerDir = join(sb.root, "markers");
  });
  afterEach(() => sb.cleanup());

  /** Settings with a marker hook on every event: any hook that runs leaves a file. */
  function markEverything(): Json {
    const hooks: Json = {};
    for (const event of EVENTS) hooks[event] = [group(undefined, markerHook(sb, event).command)];
    return { hooks };
  }
  const markers = () => (existsSync(markerDir) ? readdirSync(markerDir) : []);
  /** A hook that leaves a marker file named `tag`. */
  const markerCommand = (tag: string) => `mkdir -p '${markerDir}' && touch '${join(markerDir, tag)}'`;

  describe("library bus", () => {
    it("rejects every bad payload with an Error naming the field; no hook runs", async () => {
      sb.userSettings(markEverything());
      const bus = sb.bus({ watch: false });
      for (const [event, what, payload, field] of BAD_PAYLOADS) {
        const error = await bus.dispatch({ ...payload, hook_event_name: event }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error, `${event} with ${what}`).to.be.instanceOf(Error);
        expect((error as Error).message, `${event} with ${what}`).to.include(`invalid ${event} payload: ${field}: `);
      }
      expect(markers()).to.deep.equal([]);
      // The control: the same bus runs the marker hooks for valid payloads.
      for (const event of EVENTS) await bus.dispatch({ ...payloadFor(event), hook_event_name: event });
      expect(markers()).to.have.length(EVENTS.length);
    });

    it("accepts any JSON value as tool_response, null included, and optional fields of the right type", async () => {
      const bus = sb.bus({ watch: false });
      for (const tool_response of [null, 0, "", [], { ok: true }, false]) {
        const outcome = await bus.dispatch({ ...payloadFor("PostToolUse", { tool_response }), hook_event_name: "PostToolUse" });
        expect(outcome.event).to.equal("PostToolUse");
      }
      await bus.dispatch({ ...payloadFor("Stop", { stop_hook_active: true }), hook_event_name: "Stop" });
      await bus.dispatch({ ...payloadFor("PreCompact", { trigger: "auto" }), hook_event_name: "PreCompact" });
      await bus.dispatch({ ...payloadFor("Notification"), notification_type: undefined, hook_event_name: "Notification" });
    });

    it("accepts a payload without its match field on every event that has one: it matches as the empty string", async () => {
      // Per event: a hook with no matcher, `*`, "", a name, an anchored regex, and `.*`. Only names and the anchored
      // regex need a value to match.
      const hooks: Json = {};
      const expected: string[] = [];
      for (const [event, field] of MATCH_FIELDS) {
        const tag = (m: string) => `${event}-${m}`;
        hooks[event] = [
          group(undefined, markerCommand(tag("none"))),
          group("*", markerCommand(tag("star"))),
          group("", markerCommand(tag("empty"))),
          group("somename", markerCommand(tag("name"))),
          group("^some", markerCommand(tag("anchored"))),
          group(".*", markerCommand(tag("any"))),
        ];
        expected.push(...["none", "star", "empty", "any"].map(tag));
        void field;
      }
      sb.userSettings({ hooks });
      const bus = sb.bus({ watch: false });
      for (const [event, field] of MATCH_FIELDS) {
        const outcome = await bus.dispatch({ ...without(event, field), hook_event_name: event });
        expect(
          outcome.hooks.map((h) => h.outcome),
          `${event} without ${field}`,
        ).to.deep.equal(["success", "success", "success", "success"]);
      }
      expect(markers().sort()).to.deep.equal(expected.sort());
    });

    it("a real Claude Code 2.0 SubagentStop (no agent_type) is judged by qhooks run and recorded by qhooks record", async () => {
      // As a real session sent it: agent_id and the subagent's transcript, no agent_type.
      const payload = {
        session_id: "0f3c2b9e-5d41-4c67-a8a5-6b2a1e9f7c10",
        transcript_path: "/home/u/.claude/projects/-home-u-app/0f3c2b9e-5d41-4c67-a8a5-6b2a1e9f7c10.jsonl",
        cwd: sb.project,
        permission_mode: "default",
        hook_event_name: "SubagentStop",
        stop_hook_active: false,
        agent_id: "a91c2f3d",
        agent_transcript_path: "/home/u/.claude/projects/-home-u-app/0f3c2b9e/subagents/agent-a91c2f3d.jsonl",
      };
      sb.userSettings({ hooks: { SubagentStop: [group(undefined, markerCommand("any-agent")), group("Explore", markerCommand("explore"))] } });
      const run = await sb.runEvent("SubagentStop", payload);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.outcome).to.include({ event: "SubagentStop", decision: "none" });
      expect(markers()).to.deep.equal(["any-agent"]);
      const record = await sb.run(["record", "SubagentStop"], { input: JSON.stringify(payload) });
      expect(record.code, record.stderr).to.equal(0);
      const log = await sb.run(["log", "--json", "--event", "SubagentStop"]);
      const records = JSON.parse(log.stdout) as Json[];
      expect(records.map((r) => [r.decision, r.matchValue])).to.deep.equal([
        ["recorded", ""],
        ["none", ""],
      ]);
    });

    const rejected: ReadonlyArray<readonly [string, unknown, RegExp]> = [
      ["a JSON array", "[1,2]", /object/],
      ["a JSON string", '"PreToolUse"', /object/],
      ["null", "null", /object/],
      ["text that is not JSON", "tool_name=Bash", /not valid JSON/],
      ["an empty string", "", /not valid JSON/],
      ["a payload without hook_event_name", JSON.stringify(payloadFor("PreToolUse")), /hook_event_name/],
      ["an unknown hook_event_name", JSON.stringify(payloadFor("PreToolUse", { hook_event_name: "BeforeTool" })), /hook_event_name/],
      ["an array object", [payloadFor("Stop", { hook_event_name: "Stop" })], /array/],
    ];
    for (const [what, input, message] of rejected) {
      it(`rejects ${what}`, async () => {
        sb.userSettings(markEverything());
        const error = await sb
          .bus({ watch: false })
          .dispatch(input as object | string)
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).to.be.instanceOf(Error);
        expect((error as Error).message).to.match(message);
        expect(markers()).to.deep.equal([]);
      });
    }

    it("rejects a payload larger than 16 MiB", async () => {
      sb.userSettings(markEverything());
      const text = JSON.stringify({ ...payloadFor("PreToolUse", { tool_input: { blob: "x".repeat(16 * 1024 * 1024) } }), hook_event_name: "PreToolUse" });
      const error = await sb
        .bus({ watch: false })
        .dispatch(text)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).message).to.match(/larger than/);
      expect(markers()).to.deep.equal([]);
    });
  });

  describe("CLI", () => {
    /** One bad payload per event, each through `qhooks run`, all at once. */
    it("exits 1 with exactly one `qhooks: invalid <Event> payload: <field>: ...` line, runs no hook, prints no stack", async () => {
      const settings = sb.file("mark.json", markEverything());
      const cases = EVENTS.map((event) => BAD_PAYLOADS.filter(([e]) => e === event).at(-1)!);
      const results = await Promise.all(cases.map(async (c) => ({ c, r: await sb.runEvent(c[0], c[2], ["--settings", settings, "--no-log"]) })));
      for (const { c, r } of results) {
        const [event, what, , field] = c;
        const label = `${event} with ${what}`;
        expect(r.code, label).to.equal(1);
        expect(r.stdout, label).to.equal("");
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        expect(lines, label).to.have.length(1);
        expect(lines[0], label).to.match(new RegExp(`^qhooks: invalid ${event} payload: ${field}: \\S`));
        expect(r.stderr, label).not.to.match(/\n\s+at /);
      }
      expect(markers()).to.deep.equal([]);
    });

    it("says `tool_input: expected an object` in the contract's own example", async () => {
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: "rm -rf /" }), ["--no-log"]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal("qhooks: invalid PreToolUse payload: tool_input: expected an object\n");
    });

    const rejectedInputs: ReadonlyArray<readonly [string, string, RegExp]> = [
      ["not JSON", "session_id=s1", /not valid JSON/],
      ["empty stdin", "", /not valid JSON/],
      ["truncated JSON", '{"session_id":"s1","tool_name":"Ba', /not valid JSON/],
      ["a number", "42", /object/],
      ["a string", '"hi"', /object/],
      ["null", "null", /object/],
      ["an array", JSON.stringify([payloadFor("PreToolUse")]), /array/],
      ["hook_event_name naming another event", JSON.stringify(payloadFor("PreToolUse", { hook_event_name: "PostToolUse" })), /PostToolUse/],
      ["an unknown hook_event_name", JSON.stringify(payloadFor("PreToolUse", { hook_event_name: "pretooluse" })), /hook_event_name/],
    ];
    it("rejects what is not a JSON object, or names another event: exit 1, one line, no hook", async () => {
      const settings = sb.file("mark.json", markEverything());
      const results = await Promise.all(
        rejectedInputs.map(async ([what, input, message]) => ({
          what,
          message,
          r: await sb.runEvent("PreToolUse", input, ["--settings", settings, "--no-log"]),
        })),
      );
      for (const { what, message, r } of results) {
        expect(r.code, what).to.equal(1);
        expect(r.stdout, what).to.equal("");
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        expect(lines, what).to.have.length(1);
        expect(lines[0], what)
          .to.match(/^qhooks: /)
          .and.match(message);
      }
      expect(markers()).to.deep.equal([]);
    });

    it("rejects a payload larger than 16 MiB, and accepts one just under the limit", async () => {
      const sizeFile = join(sb.root, "received.size");
      const settings = sb.file("s.json", settingsFor("PreToolUse", `wc -c > '${sizeFile}'`));
      const sized = (bytes: number) => {
        const head = JSON.stringify(payloadFor("PreToolUse", { tool_input: { blob: "" } }));
        return head.replace('"blob":""', `"blob":"${"y".repeat(bytes - head.length)}"`);
      };
      const tooBig = sized(16 * 1024 * 1024 + 1);
      const justUnder = sized(16 * 1024 * 1024 - 64);
      expect(Buffer.byteLength(tooBig)).to.equal(16 * 1024 * 1024 + 1);
      const big = await sb.runEvent("PreToolUse", tooBig, ["--settings", settings, "--no-log"]);
      expect(big.code).to.equal(1);
      expect(big.stderr.split("\n").filter((l) => l !== "")).to.have.length(1);
      expect(big.stderr).to.match(/^qhooks: .*larger than/);
      expect(existsSync(sizeFile)).to.equal(false);

      const ok = await sb.runEvent("PreToolUse", justUnder, ["--settings", settings, "--no-log"]);
      expect(ok.code, ok.stderr).to.equal(0);
      // The hook got the whole payload, plus the filled-in hook_event_name and cwd.
      expect(Number(readFileSync(sizeFile, "utf8").trim())).to.be.greaterThan(16 * 1024 * 1024 - 64);
    });
  });

  describe("filled-in fields", () => {
    it("adds hook_event_name and cwd (the project directory) when absent", async () => {
      const capture = captureHook(sb);
      const settings = sb.file("s.json", settingsFor("PreToolUse", capture.command));
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", settings, "--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      const received = JSON.parse(capture.text()) as Json;
      expect(received.hook_event_name).to.equal("PreToolUse");
      expect(realpathSync(received.cwd as string)).to.equal(realpathSync(sb.project));
      expect(received).not.to.have.property("stop_hook_active");
    });

    it("keeps cwd and hook_event_name as the agent sent them", async () => {
      const capture = captureHook(sb);
      const settings = sb.file("s.json", settingsFor("PreToolUse", capture.command));
      const payload = payloadFor("PreToolUse", { cwd: "/somewhere/else", hook_event_name: "PreToolUse" });
      const r = await sb.runEvent("PreToolUse", payload, ["--settings", settings, "--no-log"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(JSON.parse(capture.text())).to.deep.equal(payload);
    });

    it("uses --project-dir for the filled-in cwd", async () => {
      const capture = captureHook(sb);
      const elsewhere = join(sb.root, "elsewhere");
      sb.file(join(elsewhere, ".keep"), "");
      const settings = sb.file("s.json", settingsFor("Notification", capture.command));
      const r = await sb.runEvent("Notification", payloadFor("Notification"), ["--settings", settings, "--no-log", "--project-dir", elsewhere]);
      expect(r.code, r.stderr).to.equal(0);
      expect((JSON.parse(capture.text()) as Json).cwd).to.equal(elsewhere);
    });

    it("adds stop_hook_active: false to a Stop payload without it, and keeps true when sent", async () => {
      const capture = captureHook(sb);
      const settings = sb.file("s.json", settingsFor("Stop", capture.command));
      await sb.runEvent("Stop", { session_id: "s1" }, ["--settings", settings, "--no-log"]);
      expect(JSON.parse(capture.text())).to.include({ session_id: "s1", hook_event_name: "Stop", stop_hook_active: false });
      await sb.runEvent("Stop", { session_id: "s1", stop_hook_active: true }, ["--settings", settings, "--no-log"]);
      expect(JSON.parse(capture.text())).to.include({ stop_hook_active: true });
    });

    it("the library fills in the same fields", async () => {
      const capture = captureHook(sb);
      sb.userSettings(settingsFor("Stop", capture.command));
      await sb.bus({ watch: false }).dispatch({ session_id: "lib", hook_event_name: "Stop" });
      const received = JSON.parse(capture.text()) as Json;
      expect(received).to.include({ session_id: "lib", hook_event_name: "Stop", stop_hook_active: false });
      expect(realpathSync(received.cwd as string)).to.equal(realpathSync(sb.project));
    });
  });

  describe("--fail-closed", () => {
    it("turns an invalid payload into exit 2 with the reason on stderr; no hook runs", async () => {
      const settings = sb.file("mark.json", markEverything());
      const [bad, notJson] = await Promise.all([
        sb.runEvent("PreToolUse", payloadFor("PreToolUse", { tool_input: 7 }), ["--settings", settings, "--no-log", "--fail-closed"]),
        sb.runEvent("Stop", "{not json", ["--settings", settings, "--no-log", "--fail-closed"]),
      ]);
      expect(bad.code).to.equal(2);
      expect(bad.stdout).to.equal("");
      expect(bad.stderr).to.equal("qhooks: invalid PreToolUse payload: tool_input: expected an object\n");
      expect(notJson.code).to.equal(2);
      expect(notJson.stderr).to.match(/^qhooks: payload is not valid JSON.*\n$/);
      expect(markers()).to.deep.equal([]);
    });

    it("also under --format hook: exit 2, the reason on stderr, nothing on stdout", async () => {
      const settings = sb.file("mark.json", markEverything());
      const r = await sb.runEvent("PermissionRequest", payloadFor("PermissionRequest", { tool_name: null }), [
        "--settings",
        settings,
        "--format",
        "hook",
        "--fail-closed",
        "--no-log",
      ]);
      expect(r.code).to.equal(2);
      expect(r.stdout).to.equal("");
      expect(r.stderr).to.match(/^qhooks: invalid PermissionRequest payload: tool_name: /);
    });

    it("changes nothing when qhooks can judge", async () => {
      const settings = sb.file("mark.json", markEverything());
      const r = await sb.runEvent("PreToolUse", payloadFor("PreToolUse"), ["--settings", settings, "--no-log", "--fail-closed"]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.outcome).to.include({ decision: "none", blocked: false });
      expect(markers()).to.have.length(1);
    });
  });
});
