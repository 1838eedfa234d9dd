import { compileMatcher } from "../../src/core/compileMatcher.js";
import type { InProcessHandler, SelectedDeclaredHook } from "../../src/core/hookDescriptor.js";
import type { EventName } from "../../src/schema/events.js";

/** A selected command hook as no settings file declares it (a user-level file entry, matching everything). */
export function commandHook(command: string, timeoutMs = 10_000, event: EventName = "PreToolUse"): SelectedDeclaredHook {
  const declared = {
    kind: "command" as const,
    event,
    name: command,
    longName: command,
    level: "user",
    matcherSource: null,
    matcher: compileMatcher(undefined).matcher,
    timeoutMs,
    timeoutSetting: "settings" as const,
    shadow: false,
    handler: { type: "command" as const, command },
    command,
    written: command,
    file: "(test)",
    path: "hooks",
    plugin: null,
  };
  return { ...declared, declared: [declared], env: {}, verified: null };
}

/** An in-process handler as `bus.use()` registers it. */
export function inProcessHook(name: string, handle: () => unknown, timeoutMs = 10_000, event: EventName = "PreToolUse"): InProcessHandler {
  return {
    kind: "in-process",
    level: "in-process",
    command: null,
    event,
    name,
    matcherSource: null,
    matcher: compileMatcher(undefined).matcher,
    timeoutMs,
    shadow: false,
    // Tests give what a JavaScript handler, unchecked by the compiler, may return.
    handle: handle as InProcessHandler["handle"],
  };
}
