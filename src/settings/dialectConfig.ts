import { join } from "node:path";
import { z } from "zod";
import { localDataDir } from "../core/dataDir.js";
import { DIALECTS, type Dialect } from "../hosts/hostDialect.js";
import { describeJsonError } from "../json/describeJsonError.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { MAX_SETTINGS_BYTES, readRegularFile } from "./readSettingsSource.js";

/**
 * qhooks' own settings on this machine, `~/.qhooks/config.json`: today the dialect a person chose (`qhooks config
 * dialect HOST`, or the first `qhooks install HOST`). Keys qhooks does not know are kept when it rewrites the file.
 */
export const QhooksConfigSchema = z.looseObject({
  dialect: z.enum(DIALECTS).optional(),
  /** Who wrote `dialect`: an install (which its uninstall may take back) or the person (`qhooks config dialect`). */
  dialectSetBy: z.enum(["install", "config"]).optional(),
});
export type QhooksConfig = z.infer<typeof QhooksConfigSchema>;

export const configPath = (homeDir: string): string => join(localDataDir(homeDir), "config.json");

/** The config as read: none, its contents, or why it cannot be used (then it is as if there were none). */
export type ConfigRead =
  | { readonly state: "none"; readonly path: string }
  | { readonly state: "read"; readonly path: string; readonly config: QhooksConfig }
  | { readonly state: "bad"; readonly path: string; readonly why: string };

export function readConfig(homeDir: string): ConfigRead {
  const path = configPath(homeDir);
  const read = readRegularFile(path, MAX_SETTINGS_BYTES);
  if (read.state === "missing") return { state: "none", path };
  if (read.state === "not-regular") return { state: "bad", path, why: `${read.kind}, not a regular file` };
  if (read.state === "too-large") return { state: "bad", path, why: `more than ${MAX_SETTINGS_BYTES} bytes` };
  if (read.state === "error") return { state: "bad", path, why: `unreadable (${read.code})` };
  const text = read.bytes.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { state: "bad", path, why: `not JSON (${describeJsonError(text, e)})` };
  }
  const parsed = QhooksConfigSchema.safeParse(json);
  if (!parsed.success) return { state: "bad", path, why: firstIssueLine(parsed.error) };
  return { state: "read", path, config: parsed.data };
}

/** The remembered dialect, with who set it; null when none is set. A bad file is the caller's to say (`warning`). */
export function rememberedDialect(read: ConfigRead): { readonly dialect: Dialect; readonly setBy: "install" | "config"; readonly path: string } | null {
  if (read.state !== "read" || read.config.dialect === undefined) return null;
  return { dialect: read.config.dialect, setBy: read.config.dialectSetBy ?? "config", path: read.path };
}

/** The line a bad config file is worth, once, before the dialect is chosen without it. */
export const badConfigLine = (read: ConfigRead): string | null =>
  read.state === "bad" ? `${read.path}: ${read.why}; ignored, the dialect is chosen without it (qhooks config dialect HOST writes a new one)` : null;
