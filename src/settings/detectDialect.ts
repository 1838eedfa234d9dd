import { existsSync } from "node:fs";
import { DIALECTS, type Dialect } from "../hosts/hostDialect.js";
import { HOSTS } from "../hosts/hosts.js";
import { badConfigLine, readConfig, rememberedDialect } from "./dialectConfig.js";
import { dialectOf } from "./settingsPlan.js";

/** Which host's settings a command reads, how that was decided, and a line for the person when it looks wrong. */
export interface DialectChoice {
  readonly dialect: Dialect;
  readonly how: "flag" | "environment" | "remembered" | "detected" | "default";
  /** What `how` rests on, for `qhooks config dialect`: the config file (remembered), the host whose files exist (detected). */
  readonly from: string | null;
  /** One line when the chosen host has no settings files here and another host has: probably the wrong door. */
  readonly note: string | null;
  /** One line when the config file cannot be used (then the choice is made without it). */
  readonly warning: string | null;
}

/**
 * The one place the dialect is chosen: `--dialect`, else $QHOOKS_DIALECT, else (for a command a person types) the
 * dialect remembered in ~/.qhooks/config.json, else the one host whose settings files exist for this project (a
 * folder level, Copilot CLI's `.github/hooks/`, by its folder), else the default. A command the host calls (`run`,
 * `record`) never reads the config nor detects: a new `~/.claude`, or a changed preference, must not change how a
 * guard is judged; installed entries name their dialect.
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
  // Read only when it could decide: a flag or the environment wins without it, and hosts' calls never read it.
  const config = pinned === undefined && where.detect ? readConfig(where.homeDir) : null;
  const warning = config === null ? null : badConfigLine(config);
  const remembered = config === null ? null : rememberedDialect(config);
  // A host whose files the chosen one reads too (Claude Code's, under Copilot CLI) is no other host to point to.
  const readsToo = (dialect: Dialect, id: Dialect): boolean =>
    HOSTS[dialect].settingsLevels(where.homeDir, where.projectDir, env).some((level) => level.ownedBy === id && existsSync(level.path));
  const noteFor = (dialect: Dialect): string | null => {
    const other = present.length === 1 && present[0] !== dialect && !readsToo(dialect, present[0]!) ? HOSTS[present[0]!] : null;
    return other && where.detect ? `no ${HOSTS[dialect].name} settings files here, but ${other.name}'s exist: add --dialect ${other.id} to read them` : null;
  };
  if (remembered !== null) return { dialect: remembered.dialect, how: "remembered", from: remembered.path, note: noteFor(remembered.dialect), warning };
  if (pinned === undefined && where.detect && present.length === 1)
    return { dialect: present[0]!, how: "detected", from: `only ${HOSTS[present[0]!].name}'s settings files exist here`, note: null, warning };
  const dialect = dialectOf(asked, env);
  const how = asked !== undefined ? "flag" : pinned !== undefined ? "environment" : "default";
  return { dialect, how, from: null, note: noteFor(dialect), warning };
}
