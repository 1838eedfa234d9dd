import { Observable } from "rxjs";
import { messageOf } from "../../errors.js";
import type { HookRun } from "../../core/hookRun.js";
import { oneLineText } from "../../text/oneLine.js";
import { replaceLiteral } from "../../text/replaceLiteral.js";
import { plainJson } from "./plainJson.js";
import { readShortForm } from "./shortForm.js";
import { handlerOf } from "../../core/hookDescriptor.js";
import type { RunRequest, Runner } from "./runner.js";

/**
 * `prompt` and `agent` hooks (the evaluator) and `mcp_tool` hooks (the MCP caller): a function of the embedding
 * agent's, called with an AbortSignal that fires at the hook's timeout or when the bus closes. What it resolves to
 * is read like an in-process handler's value, `{ ok: false, reason }` meaning block; a throw or a rejection is this
 * hook's error. Selection has already skipped these hooks when no function is there to call.
 */
export const callRunner: Runner = (request) =>
  new Observable<HookRun>((subscriber) => {
    const controller = new AbortController();
    const { elapsed } = request;
    Promise.resolve()
      .then(async () => {
        const read = await plainJson(call(request, controller.signal));
        return read.ok ? readShortForm(read.value) : read;
      })
      .then(
        (read): HookRun =>
          read.ok ? { type: "returned", value: read.value, durationMs: elapsed() } : { type: "unreadable", message: read.why, durationMs: elapsed() },
        (e: unknown): HookRun => ({ type: "threw", message: oneLineText(messageOf(e)), durationMs: elapsed() }),
      )
      .then((run) => {
        if (controller.signal.aborted) return;
        subscriber.next(run);
        subscriber.complete();
      });
    return () => controller.abort(new Error("the hook's run was stopped (timeout, or the bus closed)"));
  });

function call({ spec, valid, services }: RunRequest, signal: AbortSignal): unknown {
  const handler = handlerOf(spec);
  const base = { event: valid.event, payload: valid.payload, hookName: spec.name, signal };
  if (handler?.type === "prompt" || handler?.type === "agent") {
    if (!services.evaluator) throw new Error("no evaluator for prompt and agent hooks");
    return services.evaluator({ ...base, type: handler.type, prompt: expandArguments(handler.prompt, valid.json), model: handler.model ?? null });
  }
  if (handler?.type === "mcp_tool") {
    if (!services.mcpToolCaller) throw new Error("no MCP tool caller");
    return services.mcpToolCaller({ ...base, server: handler.server, tool: handler.tool, input: handler.input ?? valid.payload });
  }
  throw new Error(`callRunner: a ${handler?.type ?? "command"} hook`);
}

/** `$ARGUMENTS` in a prompt stands for the event's JSON; a prompt without it gets the JSON appended. */
export function expandArguments(prompt: string, json: string): string {
  return prompt.includes("$ARGUMENTS") ? replaceLiteral(prompt, "$ARGUMENTS", json) : `${prompt}\n\n${json}`;
}
