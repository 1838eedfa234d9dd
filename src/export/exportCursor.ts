import { hash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { localDataDir } from "../core/dataDir.js";
import { QhooksError, messageOf } from "../errors.js";

/**
 * Where a continuous export stands, kept in a small file so that a restarted `qhooks export --watch` goes on where
 * the last one stopped: every event up to `after` (a seq of the log) was sent or is in `pending` (held for its
 * outcome). `last` names the newest event sent by its seq and time, which tells a cursor made for another log (a
 * file replaced, another database) from one made for this one.
 */
export const ExportCursorSchema = z.object({
  version: z.literal(1),
  /** The log, as shown (a file path, or a URL without its password). */
  log: z.string(),
  endpoint: z.string(),
  after: z.number().int().nullable(),
  pending: z.array(z.number().int()),
  last: z.object({ seq: z.number().int(), ts: z.string() }).nullable(),
  updatedAt: z.string(),
});
export type ExportCursor = z.infer<typeof ExportCursorSchema>;

/**
 * The default cursor file of an export of `log` to `endpoint`: in qhooks' own directory (where the default log
 * lives), one file per log and collector.
 */
export function defaultCursorPath(homeDir: string, log: string, endpoint: string): string {
  return join(localDataDir(homeDir), "export-cursors", `${hash("sha256", `${log}\n${endpoint}`, "hex").slice(0, 16)}.json`);
}

/** The cursor in `path`; null when there is none yet. A file that is not a cursor is one clear line. */
export function readCursor(path: string): ExportCursor | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return null;
    throw new QhooksError("io", `cannot read the export cursor ${path}: ${messageOf(e)}`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const cursor = ExportCursorSchema.safeParse(parsed);
  if (!cursor.success) throw new QhooksError("usage", `the export cursor ${path} is not one qhooks wrote (delete it to start over)`);
  return cursor.data;
}

/** Writes the cursor whole (a new file renamed over the old one): a crash leaves the old cursor or the new one. */
export function writeCursor(path: string, cursor: ExportCursor): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(cursor)}\n`);
    renameSync(temporary, path);
  } catch (e) {
    throw new QhooksError("io", `cannot write the export cursor ${path}: ${messageOf(e)}`, { cause: e });
  }
}
