import type { Outcome } from "../schema/outcome.js";
import type { HostDialect } from "../hosts/hostDialect.js";

/** What the server answers one hook request with. */
export interface HookAnswer {
  readonly status: number;
  /** JSON for 2xx (possibly empty), one line of text otherwise. */
  readonly body: string;
  readonly contentType: "application/json" | "text/plain; charset=utf-8";
}

/**
 * Events whose block has no JSON form a host reads (the hook protocol blocks them by exit 2 only): over HTTP, a
 * block is a non-2xx answer, which the host treats as a failed hook (a block only under `onFailure: "block"`).
 */
const NO_JSON_BLOCK = new Set(["TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult", "WorktreeCreate"]);

const json = (body: string): HookAnswer => ({ status: 200, body, contentType: "application/json" });
export const textAnswer = (status: number, line: string): HookAnswer => ({ status, body: `${line}\n`, contentType: "text/plain; charset=utf-8" });

/**
 * An outcome as the host reads an http hook's answer: the bytes `qhooks run --format hook` prints on stdout, as a
 * 200 body. An HTTP answer has no exit code and a status never blocks, so the protocol's exit 2 is said in its JSON
 * form (docs/decisions.md): a permission denial on PreToolUse and PreModelSwitch, a `behavior: "deny"` on
 * PermissionRequest, `decision: "block"` on the others; where an event has no JSON block (NO_JSON_BLOCK), 409 with
 * the reason. WorktreeCreate's path goes out as `hookSpecificOutput.worktreePath`, the http form of that answer.
 * `notices` go where the host shows them (Claude Code: a `systemMessage`), as in `run`'s answer; never in the decision.
 */
export function httpAnswer(host: HostDialect, outcome: Outcome, notices: readonly string[] = []): HookAnswer {
  const reply = host.answer(outcome, notices);
  if (reply.exitCode === 0) {
    if (outcome.event === "WorktreeCreate") {
      return json(reply.stdout === "" ? "" : JSON.stringify({ hookSpecificOutput: { hookEventName: "WorktreeCreate", worktreePath: reply.stdout } }));
    }
    return json(reply.stdout);
  }
  const reason = reply.stderr;
  if (NO_JSON_BLOCK.has(outcome.event)) return textAnswer(409, reason);
  switch (outcome.event) {
    case "PreToolUse":
    case "PreModelSwitch":
      return json(JSON.stringify({ hookSpecificOutput: { hookEventName: outcome.event, permissionDecision: "deny", permissionDecisionReason: reason } }));
    case "PermissionRequest":
      return json(JSON.stringify({ hookSpecificOutput: { hookEventName: outcome.event, decision: { behavior: "deny", message: reason } } }));
    default:
      return json(JSON.stringify({ decision: "block", reason }));
  }
}
