import type { SkippedHook } from "../schema/outcome.js";
import { oneLineText } from "../text/oneLine.js";
import type { OnceMemory } from "./once.js";
import type { HandlerServices } from "../core/services.js";
import type { SelectedHook } from "../core/hookDescriptor.js";

export interface HandlerSplit {
  /** Hooks whose result makes the outcome. */
  readonly runnable: readonly SelectedHook[];
  /** `async: true` hooks that run in the background (also listed in `skipped`, reason `async`). */
  readonly background: readonly SelectedHook[];
  readonly skipped: readonly SkippedHook[];
  /** One line per hook that cannot run here (no evaluator, no MCP caller). */
  readonly warnings: readonly string[];
}

/**
 * After trust, what the handlers themselves decide: a prompt/agent hook without an evaluator and an mcp_tool hook
 * without a caller are skipped with a warning; a `once` hook that already ran in the session is skipped; an
 * `async` hook leaves the outcome's hooks for the background. Selection order is kept.
 */
export function splitByHandler(hooks: readonly SelectedHook[], sessionId: string, services: HandlerServices, once: OnceMemory): HandlerSplit {
  const runnable: SelectedHook[] = [];
  const background: SelectedHook[] = [];
  const skipped: SkippedHook[] = [];
  const warnings: string[] = [];
  for (const spec of hooks) {
    if (spec.kind === "in-process") {
      runnable.push(spec);
      continue;
    }
    const handler = spec.handler;
    const skip = (reason: SkippedHook["reason"], message: string, warn: boolean) => {
      skipped.push({ name: spec.name, command: spec.command, level: spec.level, matcher: spec.matcherSource, type: handler.type, reason, message });
      if (warn) warnings.push(`hook ${oneLineText(spec.name)} did not run: ${message}`);
    };
    if ((handler.type === "prompt" || handler.type === "agent") && !services.evaluator) {
      skip("no-evaluator", `no evaluator for ${handler.type} hooks (an embedding agent passes one to createHookBus; the CLI reads QHOOKS_EVALUATOR_URL)`, true);
      continue;
    }
    if (handler.type === "mcp_tool" && !services.mcpToolCaller) {
      skip("no-mcp-caller", "no MCP tool caller (only an embedding agent can give one, to createHookBus)", true);
      continue;
    }
    if (handler.once === true && !once.claim(sessionId, onceKey(spec))) {
      skip("once", "already ran in this session (once: true)", false);
      continue;
    }
    if (handler.async === true) {
      background.push(spec);
      skip("async", "runs in the background (async: true): its result is logged with this event when it ends and never changes the outcome", false);
      continue;
    }
    runnable.push(spec);
  }
  return { runnable, background, skipped, warnings };
}

/** A hook's identity for `once`: where it is declared and what it runs. */
const onceKey = (spec: SelectedHook): string => `${spec.level}\0${spec.command ?? spec.name}`;
