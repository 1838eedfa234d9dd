import { mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf } from "../errors.js";

/** Most of a $CLAUDE_ENV_FILE that is read; the rest is dropped with a warning. */
export const MAX_ENV_FILE_BYTES = 64 * 1024;

/**
 * The file SessionStart hooks append `export K=V` lines to (`$CLAUDE_ENV_FILE`): an empty file in a private
 * directory of its own, made before the hooks start and removed once they have all ended and it has been read.
 */
export interface EnvFile {
  readonly path: string;
  /** Reads the variables the hooks wrote; warnings for lines that are not assignments. */
  read(): { env: Record<string, string>; warnings: string[] };
  /** Removes the file and its directory (again: nothing). */
  remove(): void;
}

export function createEnvFile(): EnvFile | { error: string } {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "qhooks-env-"));
    writeFileSync(join(dir, "env"), "", { mode: 0o600 });
  } catch (e) {
    return { error: `no $CLAUDE_ENV_FILE for this SessionStart: ${messageOf(e)}` };
  }
  const path = join(dir, "env");
  return {
    path,
    remove: () => rmSync(dir, { recursive: true, force: true }),
    read() {
      try {
        const fd = openSync(path, "r");
        const buffer = Buffer.alloc(MAX_ENV_FILE_BYTES + 1);
        let read: number;
        try {
          read = readSync(fd, buffer, 0, buffer.length, 0);
        } finally {
          closeSync(fd);
        }
        const parsed = parseEnvLines(buffer.subarray(0, Math.min(read, MAX_ENV_FILE_BYTES)).toString("utf8"));
        if (read > MAX_ENV_FILE_BYTES) parsed.warnings.push(`$CLAUDE_ENV_FILE: more than ${MAX_ENV_FILE_BYTES} bytes; the rest is ignored`);
        return parsed;
      } catch (e) {
        return { env: {}, warnings: [`$CLAUDE_ENV_FILE could not be read: ${messageOf(e)}`] };
      }
    },
  };
}

/**
 * `export K=V` lines (and `K=V`), as shells write them: a value in single quotes is taken as is, one in double
 * quotes with `\"`, `\\`, `\$` and `` \` `` unescaped; nothing is expanded. Blank lines and `#` comments are skipped;
 * anything else is one warning each. A later assignment of a name wins.
 */
export function parseEnvLines(text: string): { env: Record<string, string>; warnings: string[] } {
  const env: Record<string, string> = {};
  const warnings: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    const value = m ? unquote(m[2]!) : null;
    if (!m || value === null) {
      warnings.push(`$CLAUDE_ENV_FILE line ${i + 1}: not an export K=V assignment, ignored`);
      return;
    }
    env[m[1]!] = value;
  });
  return { env, warnings };
}

function unquote(value: string): string | null {
  if (value.startsWith("'")) return value.length >= 2 && value.endsWith("'") && !value.slice(1, -1).includes("'") ? value.slice(1, -1) : null;
  if (value.startsWith('"')) {
    if (value.length < 2 || !value.endsWith('"')) return null;
    return value.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  }
  return /\s/.test(value) ? null : value;
}
