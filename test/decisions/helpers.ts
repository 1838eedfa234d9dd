import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { HookBus } from "../../src/engine/createHookBus.js";
import type { HookResult, Outcome } from "../../src/schema/outcome.js";
import { type Sandbox, group } from "../support/sandbox.js";

export type Json = Record<string, unknown>;

/**
 * Every event with the decision an exit 2 produces on it; null: not blockable. The twelve classic ones as in
 * contract 2.1, the others as Claude Code's hooks reference says ("Exit code 2 behavior per event").
 */
export const EXIT2_DECISION: ReadonlyArray<readonly [string, "deny" | "block" | null]> = [
  ["PreToolUse", "deny"],
  ["PermissionRequest", "deny"],
  ["PostToolUse", "block"],
  ["PostToolUseFailure", "block"],
  ["UserPromptSubmit", "block"],
  ["Stop", "block"],
  ["SubagentStop", "block"],
  ["SubagentStart", null],
  ["SessionStart", null],
  ["SessionEnd", null],
  ["PreCompact", null],
  ["Notification", null],
  ["Setup", null],
  ["InstructionsLoaded", null],
  ["UserPromptExpansion", "block"],
  ["MessageDisplay", null],
  ["PermissionDenied", null],
  ["PostToolBatch", "block"],
  ["TaskCreated", "block"],
  ["TaskCompleted", "block"],
  ["StopFailure", null],
  ["TeammateIdle", "block"],
  ["ConfigChange", "block"],
  ["CwdChanged", null],
  ["DirectoryAdded", null],
  ["FileChanged", null],
  ["WorktreeCreate", "block"],
  ["WorktreeRemove", null],
  ["PostCompact", null],
  ["PreModelSwitch", "deny"],
  ["PostModelSwitch", null],
  ["Elicitation", "block"],
  ["ElicitationResult", "block"],
];

/** Events whose plain stdout (exit 0) becomes context. */
export const STDOUT_IS_CONTEXT = ["UserPromptSubmit", "SessionStart", "UserPromptExpansion", "PostModelSwitch"];

export const EVENTS = EXIT2_DECISION.map(([e]) => e);

let counter = 0;

/**
 * A hook command that prints `stdout` and `stderr` exactly (read from files, so that no shell quoting gets in the
 * way) and exits with `exit`. Each call gives a distinct command, so that identical commands are never merged.
 */
export function hookCommand(sb: Sandbox, opts: { stdout?: string; stderr?: string; exit?: number; before?: string } = {}): string {
  const n = ++counter;
  const parts: string[] = [];
  if (opts.before) parts.push(opts.before);
  if (opts.stdout !== undefined) parts.push(`cat '${sb.file(join("out", `h${n}.stdout`), opts.stdout)}'`);
  if (opts.stderr !== undefined) parts.push(`cat '${sb.file(join("out", `h${n}.stderr`), opts.stderr)}' >&2`);
  parts.push(`exit ${opts.exit ?? 0}`);
  return `${parts.join("; ")} # h${n}`;
}

/** A hook command printing `json` (an object is serialised) on stdout with exit 0. */
export function jsonHook(sb: Sandbox, json: Json | string): string {
  return hookCommand(sb, { stdout: typeof json === "string" ? json : JSON.stringify(json) });
}

/** User-level settings with these hooks on `event`, in one matcher-less group. */
export function settingsFor(event: string, ...commands: (string | Json)[]): Json {
  return { hooks: { [event]: [group(undefined, ...commands)] } };
}

/** A library bus (no log, no watcher) judging `event` with these hooks from the user settings. */
export function busWith(sb: Sandbox, event: string, ...commands: (string | Json)[]): HookBus {
  sb.userSettings(settingsFor(event, ...commands));
  return sb.bus({ watch: false });
}

export const hooksOf = (outcome: Outcome | Json | null): HookResult[] => (outcome as { hooks: HookResult[] }).hooks;

export function only(outcome: Outcome | Json | null): HookResult {
  const hooks = hooksOf(outcome);
  if (hooks.length !== 1) throw new Error(`expected exactly one hook result, got ${hooks.length}`);
  return hooks[0]!;
}

/** A marker-file command: proves (by the file's existence) whether a hook ran. */
export function markerHook(sb: Sandbox, name = "ran"): { command: string; path: string; ran: () => boolean } {
  const path = join(sb.root, "markers", `${name}-${++counter}`);
  return { command: `mkdir -p '${join(sb.root, "markers")}' && echo ran > '${path}'`, path, ran: () => existsSync(path) };
}

/** A hook command that saves its stdin to a file, for payload-forwarding checks. */
export function captureHook(sb: Sandbox): { command: string; path: string; text: () => string } {
  const path = join(sb.root, "captured", `stdin-${++counter}.json`);
  return { command: `mkdir -p '${join(sb.root, "captured")}' && cat > '${path}'`, path, text: () => readFileSync(path, "utf8") };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** stderr without the `qhooks: warning: ` lines (the Stop-loop guard, for one, warns under --no-log). */
export const withoutWarnings = (stderr: string): string =>
  stderr
    .split("\n")
    .filter((l) => !l.startsWith("qhooks: warning: "))
    .join("\n");
