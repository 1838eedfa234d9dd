import { existsSync } from "node:fs";
import { DIALECTS, type Dialect } from "../hosts/hostDialect.js";
import { HOSTS } from "../hosts/hosts.js";
import { dialectOf } from "./settingsPlan.js";

/** Which host's settings a command reads, how that was decided, and a line for the person when it looks wrong. */
export interface DialectChoice {
  readonly dialect: Dialect;
  readonly how: "flag" | "environment" | "detected" | "default";
  /** One line when the chosen host has no settings files here and another host has: probably the wrong door. */
  readonly note: string | null;
}

/**
 * `--dialect`, else $QHOOKS_DIALECT, else (for a command a person types) the one host whose settings files exist for
 * this project (a folder level, Copilot CLI's `.github/hooks/`, by its folder), else the default. A command the host
 * calls (`run`, `record`) never detects: a new `~/.claude` must not change how a guard is judged; installed entries
 * name their dialect.
 */
export function chooseDialect(
  asked: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  where: { readonly homeDir: string; readonly projectDir: string; readonly detect: boolean },
): DialectChoice {
  const pinned = asked ?? (env.QHOOKS_DIALECT?.trim() || undefined);
  const present = DIALECTS.filter((id) =>
    HOSTS[id]
      .settingsLevels(where.homeDir, where.projectDir, env)
      // The machine's files (Cursor's enterprise file, Copilot CLI's policy folder) say nothing about this person's host.
      .filter((level) => level.level === "user" || level.level === "project" || level.level === "local")
      // Another host's file this one also reads (Claude Code's, read by Copilot CLI) is that host's sign only.
      .filter((level) => level.ownedBy === undefined)
      .some((level) => existsSync(level.folder?.path ?? level.path)),
  );
  if (pinned === undefined && where.detect && present.length === 1) return { dialect: present[0]!, how: "detected", note: null };
  const dialect = dialectOf(asked, env);
  const how = asked !== undefined ? "flag" : pinned !== undefined ? "environment" : "default";
  // A host whose files the chosen one reads too (Claude Code's, under Copilot CLI) is no other host to point to.
  const readsToo = (id: Dialect): boolean =>
    HOSTS[dialect].settingsLevels(where.homeDir, where.projectDir, env).some((level) => level.ownedBy === id && existsSync(level.path));
  const other = present.length === 1 && present[0] !== dialect && !readsToo(present[0]!) ? HOSTS[present[0]!] : null;
  const note =
    other && where.detect ? `no ${HOSTS[dialect].name} settings files here, but ${other.name}'s exist: add --dialect ${other.id} to read them` : null;
  return { dialect, how, note };
}
