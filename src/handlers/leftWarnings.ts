import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { LogWarningSchema, type LogWarning } from "../schema/logWarning.js";

/** What a background process left for the next `qhooks run` to say (one JSON warning a line). */
const FILE = "left-by-background";
/** More than this is not kept: the same few warnings, over and over, from a log whose key stays unusable. */
const MAX_LEFT = 16;

/**
 * Leaves warnings about the log that a process nobody hears came up with (an async hook's detached process, whose
 * output nobody reads) in `dir` (the notices folder beside the log), for the next `qhooks run` to say in the host's
 * answer. Best effort: a folder that cannot be written loses them, as before.
 */
export function leaveWarnings(dir: string, warnings: readonly LogWarning[]): void {
  if (warnings.length === 0) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, FILE);
    const kept = readLeft(file);
    const fresh = warnings.filter((w) => !kept.some((k) => k.kind === w.kind && k.message === w.message));
    if (fresh.length === 0) return;
    // Written whole and renamed into place: a run taking the file never reads half a line.
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(
      temporary,
      [...kept, ...fresh]
        .slice(-MAX_LEFT)
        .map((w) => `${JSON.stringify(w)}\n`)
        .join(""),
      { mode: 0o600 },
    );
    renameSync(temporary, file);
  } catch {
    // Nobody to tell: the warning is lost, as it was before this file.
  }
}

/**
 * Takes what background processes left in `dir`: once taken (renamed away, then removed) no other run says it.
 * Nothing, quickly, when there is no file (what almost every run finds).
 */
export function takeLeftWarnings(dir: string): LogWarning[] {
  const file = join(dir, FILE);
  const taken = `${file}.taken.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(file, taken);
  } catch {
    return [];
  }
  try {
    return readLeft(taken);
  } finally {
    rmSync(taken, { force: true });
  }
}

function readLeft(file: string): LogWarning[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const warnings: LogWarning[] = [];
  for (const line of text.split("\n")) {
    try {
      const parsed = LogWarningSchema.safeParse(JSON.parse(line));
      if (parsed.success) warnings.push(parsed.data);
    } catch {
      // Not a warning (an empty or cut line): skipped.
    }
  }
  return warnings;
}
