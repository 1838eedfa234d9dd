import { redactEntry } from "../../src/redact/redactEntry.js";
import { builtInRedactor, createRedactor } from "../../src/redact/redactor.js";
import { compileRedactPattern } from "../../src/redact/userPatterns.js";
import type { Outcome } from "../../src/schema/outcome.js";
import type { EventEntry } from "../../src/store/eventLog.js";
import { eventRow } from "../../src/store/journal/rows.js";
import type { BenchConfig } from "../config.js";
import { caseResult, interleave, progress, rate, type CaseResult } from "../harness.js";
import { preToolUsePayload } from "../fixtures.js";

/**
 * Case R: what redaction costs each logged event, on the dispatch path. R1: an ordinary event (a Bash command, one
 * hook's output, no secret): the prefilter alone; R2: the same with a GitHub token in the command and a password in
 * the hook's stderr (the detectors run); R3: R1 with three patterns of the user's. Each against building the
 * event's journal record (`eventRow`: what every append already pays for the same entry).
 */
export async function redactionCases(config: BenchConfig): Promise<CaseResult[]> {
  const outcome = (stderr: string): Outcome =>
    ({
      event: "PreToolUse",
      sessionId: "bench-session-0001",
      decision: "allow",
      blocked: false,
      reason: null,
      additionalContext: null,
      systemMessage: null,
      updatedInput: null,
      hooks: [
        {
          name: "guard",
          command: "~/.qoder/hooks/guard.sh",
          outcome: "success",
          decision: "allow",
          exitCode: 0,
          durationMs: 4.2,
          stdout: '{"decision":"allow"}',
          stderr,
          reason: null,
        },
      ],
      skipped: [],
      warnings: [],
      durationMs: 5.1,
      seq: null,
      configHash: "c".repeat(64),
    }) as unknown as Outcome;
  const entry = (payload: string, stderr: string): EventEntry => ({
    kind: "event",
    ts: new Date(),
    source: "dispatch",
    event: "PreToolUse",
    sessionId: "bench-session-0001",
    matchValue: "Bash",
    projectDir: "/home/dev/project",
    payload,
    snapshot: null,
    rejection: null,
    replay: null,
    outcome: outcome(stderr),
  });
  const clean = entry(preToolUsePayload(), "checked 1 command");
  const base = JSON.parse(preToolUsePayload()) as { tool_input: { command: string } };
  base.tool_input.command = `GITHUB_TOKEN=ghp_${"Rt5w".repeat(9)} gh release create v1`;
  const secret = entry(JSON.stringify(base), "mysql: password=hunter22 rejected\n");
  const user = createRedactor(
    ["ACME-[0-9]{6}", "INTERNAL-[A-Z]{4}-[0-9]{4}", "corp_[a-f0-9]{32}"].map((pattern, i) => {
      const c = compileRedactPattern({ pattern, kind: `corp-${i}` });
      if (c.pattern === null || c.warning !== null) throw new Error(c.warning?.text ?? "refused");
      return c.pattern;
    }),
  );
  if (redactEntry(clean, builtInRedactor) !== clean) throw new Error("the clean event was changed");
  if ((redactEntry(secret, builtInRedactor) as EventEntry).payload.includes("ghp_")) throw new Error("the token was kept");

  const n = config.quick ? 5_000 : 50_000;
  progress(`case R: ${n} entries redacted (clean, with secrets, with user patterns) vs their journal rows built`);
  let sink = 0;
  const s = await interleave(
    {
      row: () =>
        rate(n, () => {
          for (let i = 0; i < n; i++) sink += eventRow(clean).body.length;
        }),
      clean: () =>
        rate(n, () => {
          for (let i = 0; i < n; i++) sink += (redactEntry(clean, builtInRedactor) as EventEntry).payload.length;
        }),
      secret: () =>
        rate(n, () => {
          for (let i = 0; i < n; i++) sink += (redactEntry(secret, builtInRedactor) as EventEntry).payload.length;
        }),
      user: () =>
        rate(n, () => {
          for (let i = 0; i < n; i++) sink += (redactEntry(clean, user) as EventEntry).payload.length;
        }),
    },
    config.noMatchReps,
    1,
  );
  if (sink === 0) throw new Error("nothing measured");
  return [
    caseResult({
      id: "R1",
      name: "redaction of an ordinary event (prefilter only)",
      unit: "events/s",
      qhooks: s.clean,
      baseline: s.row,
      baselineName: "its journal row built",
      target: { kind: "ratio-min", value: 0.5 },
    }),
    caseResult({
      id: "R2",
      name: "redaction of an event with a token and a password",
      unit: "events/s",
      qhooks: s.secret,
      baseline: s.row,
      baselineName: "its journal row built",
      target: null,
    }),
    caseResult({
      id: "R3",
      name: "redaction of an ordinary event, 3 user patterns",
      unit: "events/s",
      qhooks: s.user,
      baseline: s.row,
      baselineName: "its journal row built",
      target: null,
    }),
  ];
}
