import { expect } from "chai";
import { explainLogged } from "../../src/explain/explain.js";
import type { EventDetail } from "../../src/schema/eventDetail.js";
import { ExplanationSchema } from "../../src/schema/explanation.js";
import type { HookResult, Outcome } from "../../src/schema/outcome.js";

const result = (over: Partial<HookResult>): HookResult => ({
  name: "h",
  command: "h",
  level: "project",
  matcher: null,
  outcome: "success",
  decision: "none",
  reason: null,
  error: null,
  exitCode: 0,
  signal: null,
  timedOut: false,
  durationMs: 3,
  stdout: "",
  stderr: "",
  truncated: false,
  ...over,
});

const outcome = (over: Partial<Outcome>): Outcome => ({
  event: "Stop",
  sessionId: "s",
  seq: 2,
  decision: "none",
  blocked: false,
  reason: null,
  continue: true,
  stopReason: null,
  systemMessages: [],
  additionalContext: [],
  updatedInput: null,
  suppressOutput: false,
  configHash: "c",
  durationMs: 5,
  hooks: [],
  skipped: [],
  env: {},
  warnings: [],
  ...over,
});

const detail = (over: Partial<EventDetail>): EventDetail => ({
  seq: 2,
  ts: "2026-01-01T00:00:00.000Z",
  source: "dispatch",
  event: "Stop",
  sessionId: "s",
  matchValue: null,
  projectDir: "/p",
  payload: "{}",
  rejection: null,
  decision: "none",
  outcome: null,
  snapshot: null,
  replay: null,
  origin: { machine: null, user: null, writer: null, seq: 2, host: null },
  chain: { logId: null, records: [] },
  ...over,
});

/** explain from a log's own records, as an older qhooks or an unusual outcome left them. */
describe("explainLogged", () => {
  it("a snapshot logged without its sources: files by path, a plugin's paths unexpanded, and it says so", () => {
    const document = [
      {
        level: "plugin",
        file: "/plugins/p/hooks/hooks.json",
        plugin: "p",
        hooks: { Stop: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/check.sh" }] }] },
      },
      { level: "project", file: "/p/.qoder/settings.json", hooks: { Stop: [{ hooks: [{ type: "command", command: "npm test", name: "tests" }] }] } },
    ];
    const made = explainLogged(
      detail({
        decision: "block",
        snapshot: { hash: "c", document, warnings: [] },
        outcome: outcome({
          decision: "none",
          hooks: [
            result({ name: "p: ${CLAUDE_PLUGIN_ROOT}/check.sh", command: "/plugins/p/check.sh", level: "plugin" }),
            result({ name: "tests", command: "npm test", outcome: "block", decision: "block", reason: "tests fail" }),
          ],
          warnings: ["qhooks: 3 Stop hooks in a row blocked session s; letting the agent stop this time (Stop-loop guard, cap 3)"],
        }),
      }),
    );
    expect(made.ok).to.equal(true);
    const x = ExplanationSchema.parse(made.ok && made.explanation);
    expect(x.unknown[0]).to.include("before qhooks kept the settings files' names");
    expect(x.hooks.map((h) => [h.name, h.source.file, h.verdict.kind])).to.deep.equal([
      // Logged under its old name (before short names), the run still joins its hook.
      ["p: check.sh", "/plugins/p/hooks/hooks.json", "ran"],
      ["tests", "/p/.qoder/settings.json", "ran"],
    ]);
    // The hooks blocked; the guard let the agent stop: the note says so.
    expect(x.formed!.notes.some((n) => n.startsWith("the hooks gave block, overruled after the fold") && n.includes("Stop-loop guard"))).to.equal(true);
  });

  it("no snapshot at all: the hooks that ran, from the outcome, and what is not known", () => {
    const made = explainLogged(
      detail({ outcome: outcome({ hooks: [result({ name: "in-proc", command: null, level: "in-process" }), result({ name: "x" })] }) }),
    );
    const x = ExplanationSchema.parse(made.ok && made.explanation);
    expect(x.hooks.map((h) => [h.name, h.source.level, h.verdict.kind])).to.deep.equal([
      ["in-proc", "in-process", "ran"],
      ["x", "project", "ran"],
    ]);
    expect(x.unknown[0]).to.include("holds no configuration snapshot");
  });

  it("a rejected payload that named no event: nothing to explain, said as a problem", () => {
    const made = explainLogged(detail({ event: null, decision: "rejected", rejection: "not JSON" }));
    expect(made.ok).to.equal(false);
    expect(!made.ok && made.problem.message).to.include("not JSON");
  });
});
