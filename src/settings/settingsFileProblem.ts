import { describeJsonError } from "../json/describeJsonError.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json/jsonDepth.js";
import { SettingsFileSchema } from "../schema/settings.js";
import { firstIssueLine } from "../schema/zodIssues.js";
import { readSettingsSource } from "./readSettingsSource.js";

/**
 * Why a settings file named on purpose (`--settings`) cannot be judged with: it is missing, cannot be read, is not
 * JSON, or is not a settings object. Null when it can (entries inside it may still be warned about and skipped).
 * Commands that judge with exactly the files named stop on it: a file that gives no hooks at all would report every
 * guard as gone.
 */
export function settingsFileProblem(path: string): string | null {
  const read = readSettingsSource({ level: path, path, display: path, explicit: true });
  if (read.state === "missing") return "no such file";
  if (read.state === "unreadable") return read.why;
  let document: unknown;
  try {
    document = JSON.parse(read.text);
  } catch (e) {
    return `not valid JSON (${describeJsonError(read.text, e)})`;
  }
  if (nestsDeeperThan(read.text)) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
  const file = SettingsFileSchema.safeParse(document);
  return file.success ? null : `not a settings file (${firstIssueLine(file.error)})`;
}
