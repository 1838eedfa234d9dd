import { existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Sandbox } from "../support/sandbox.js";

type Json = Record<string, unknown>;

/**
 * A hook command that appends `tag` to a marker file named after the event's session id, so that runs in parallel
 * (one session id each) never mix their marks. Every tag gives a distinct command string (no dedup between them).
 */
export function mark(sb: Sandbox, tag: string): string {
  return `printf '%s\\n' '${tag}' >> '${join(sb.root, "marks")}'-"$QHOOKS_SESSION_ID"`;
}

/** The tags written by `mark()` hooks for one session, in file order. */
export function marks(sb: Sandbox, sessionId = "s1"): string[] {
  const file = `${join(sb.root, "marks")}-${sessionId}`;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** The same, sorted: hooks run concurrently, so their order in the file is not theirs in the outcome. */
export function markSet(sb: Sandbox, sessionId = "s1"): string[] {
  return marks(sb, sessionId).sort();
}

/** A `{hooks: {Event: [groups]}}` settings document. */
export function settings(hooks: Record<string, unknown[]>, extra: Json = {}): Json {
  return { ...extra, hooks };
}

/** Lines of a CLI stream that are settings/runtime warnings, prefix removed. */
export function warningLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("qhooks: warning: "))
    .map((l) => l.slice("qhooks: warning: ".length));
}

/** Non-empty stderr lines. */
export function stderrLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l !== "");
}

/** Waits until `condition` holds, polling; fails with `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 4000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Replaces a file the way most editors save: write a temporary file, then rename it over the original. */
export function saveByRename(path: string, content: Json | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  renameSync(tmp, path);
}

export type Outcome = Json & { hooks: Json[] };

/** `hooks[].<field>` of an outcome. */
export function hookField(outcome: Json | null, field: string): unknown[] {
  return ((outcome?.hooks ?? []) as Json[]).map((h) => h[field]);
}
