import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf } from "../errors.js";
import { envFileProblemText, type EnvFileProblem } from "../core/envFileProblem.js";
import { readRegularFile } from "../settings/readSettingsSource.js";

/** Most of a $CLAUDE_ENV_FILE that is read; the rest is dropped with a warning. */
export const MAX_ENV_FILE_BYTES = 64 * 1024;

export { envFileProblemText, type EnvFileProblem } from "../core/envFileProblem.js";

/**
 * The file SessionStart hooks append `export K=V` lines to (`$CLAUDE_ENV_FILE`): an empty file in a private
 * directory of its own, made before the hooks start and removed once they have all ended and it has been read.
 */
export interface EnvFile {
  readonly path: string;
  /** Reads the variables the hooks wrote; problems for lines that are not assignments, or a file that is not one. */
  read(): { env: Record<string, string>; problems: EnvFileProblem[] };
  /** Removes the file and its directory (again: nothing). */
  remove(): void;
}

export function createEnvFile(): EnvFile | { error: EnvFileProblem } {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "qhooks-env-"));
    writeFileSync(join(dir, "env"), "", { mode: 0o600 });
  } catch (e) {
    return { error: { problem: "not-created", why: messageOf(e) } };
  }
  const path = join(dir, "env");
  return {
    path,
    remove: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // A hook made its folder unremovable (chmod): left behind, which is that hook's doing; the run goes on.
      }
    },
    read: () => readEnvFile(path),
  };
}

/**
 * The hooks can put anything at the path: a FIFO (whose open would block the run forever, deaf to SIGTERM, as the
 * read is synchronous), a device, a huge file. It is read as settings files are: a regular file only, opened
 * non-blocking, at most MAX_ENV_FILE_BYTES.
 */
function readEnvFile(path: string): { env: Record<string, string>; problems: EnvFileProblem[] } {
  const read = readRegularFile(path, MAX_ENV_FILE_BYTES, "cut");
  switch (read.state) {
    case "missing":
      return { env: {}, problems: [] };
    case "not-regular":
      return { env: {}, problems: [{ problem: "not-regular", what: read.kind }] };
    case "error":
      return { env: {}, problems: [{ problem: "unreadable", code: read.code }] };
    case "too-large":
      // Not given when cutting; kept so that every state has its answer.
      return { env: {}, problems: [{ problem: "too-large", limit: MAX_ENV_FILE_BYTES }] };
    case "read": {
      if (!read.cut) return parseEnvText(read.bytes.toString("utf8"));
      // The limit may fall inside a line (or a character): that line's value would be a part of what was written.
      const lastNewline = read.bytes.lastIndexOf(0x0a);
      const whole = parseEnvText(read.bytes.subarray(0, lastNewline + 1).toString("utf8"));
      const problems: EnvFileProblem[] = [...whole.problems];
      if (lastNewline + 1 < read.bytes.length) {
        const cutLine = read.bytes
          .subarray(0, lastNewline + 1)
          .toString("utf8")
          .split("\n").length;
        problems.push({ problem: "cut-line", line: cutLine, limit: MAX_ENV_FILE_BYTES });
      }
      problems.push({ problem: "too-large", limit: MAX_ENV_FILE_BYTES });
      return { env: whole.env, problems };
    }
  }
}

/**
 * `export K=V` lines (and `K=V`), as shells write them: a value in single quotes is taken as is, one in double
 * quotes with `\"`, `\\`, `\$` and `` \` `` unescaped; nothing is expanded. Blank lines and `#` comments are skipped;
 * anything else is one warning each. A later assignment of a name wins.
 */
export function parseEnvLines(text: string): { env: Record<string, string>; warnings: string[] } {
  const { env, problems } = parseEnvText(text);
  return { env, warnings: problems.map(envFileProblemText) };
}

function parseEnvText(text: string): { env: Record<string, string>; problems: EnvFileProblem[] } {
  const env: Record<string, string> = {};
  const problems: EnvFileProblem[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    const value = m ? unquote(m[2]!) : null;
    if (!m || value === null) {
      problems.push({ problem: "not-assignment", line: i + 1 });
      return;
    }
    env[m[1]!] = value;
  });
  return { env, problems };
}

function unquote(value: string): string | null {
  if (value.startsWith("'")) return value.length >= 2 && value.endsWith("'") && !value.slice(1, -1).includes("'") ? value.slice(1, -1) : null;
  if (value.startsWith('"')) {
    if (value.length < 2 || !value.endsWith('"')) return null;
    return value.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  }
  return /\s/.test(value) ? null : value;
}
