import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import type { Dialect, HostDialect } from "../hosts/hostDialect.js";
import { messageOf } from "../errors.js";
import { readConfig, rememberedDialect } from "../settings/dialectConfig.js";
import { writeDialect } from "./rememberDialect.js";
import { hostKeys, parseDocument, removeEntries } from "./entriesEdit.js";
import { hostDialect } from "../hosts/hosts.js";
import { INSTALL_SCOPES, installRecordPath, type InstallScope } from "./installPaths.js";
import type { InstallRecord } from "./installRecord.js";
import { readInstallRecord, removeInstallRecord } from "./installRecordFile.js";
import { readTarget, removeEmptyDirs, replaceFile, requireWritable, sha256Of } from "./targetFile.js";
import { unifiedDiff } from "./textDiff.js";

export interface UninstallOptions {
  readonly host: HostDialect;
  /** Only this scope; every scope installed when undefined. */
  readonly scope: InstallScope | undefined;
  readonly homeDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly dryRun: boolean;
}

/**
 * `qhooks uninstall <host>`: undoes each install of the host by its ownership record. A file nobody touched since is
 * put back byte for byte (a file that did not exist is removed); a file the host or the user changed since keeps every
 * change, and loses only the entries install wrote, as written. Returns the lines to print.
 */
export function uninstall(o: UninstallOptions): string[] {
  const managed = o.host.managedSettings(o.env, o.platform);
  const scopes = (o.scope ? [o.scope] : INSTALL_SCOPES).filter((s) => s === "user" || managed !== null);
  const lines: string[] = [];
  for (const scope of scopes) {
    const recordPath = installRecordPath(o.host.id, scope, o.homeDir, managed);
    const record = readInstallRecord(recordPath);
    if (record === null) continue;
    if (!o.dryRun) requireWritable(record.file, scope === "managed" ? " (run it with sudo)" : "");
    lines.push(...undo(record, recordPath, o.dryRun));
    if (record.rememberedDialect === true) lines.push(...forgetDialect(o, record.host));
  }
  if (lines.length === 0) return [`qhooks is not installed for ${o.host.name}${o.scope ? ` (--scope ${o.scope})` : ""}; nothing to do`];
  return lines;
}

function undo(record: InstallRecord, recordPath: string, dryRun: boolean): string[] {
  const file = readTarget(record.file, record.file);
  const lines: string[] = [];
  let next: Buffer | null;
  if (file.bytes === null) {
    next = null;
    lines.push(`${record.file} is gone already; nothing to restore`);
  } else if (sha256Of(file.bytes) === record.afterSha256) {
    next = record.before.existed ? Buffer.from(record.before.base64, "base64") : null;
    lines.push(
      record.before.existed ? `Restored ${record.file} byte for byte as it was before install` : `Removed ${record.file} (it did not exist before install)`,
    );
  } else if (noneLeft(file.bytes, record)) {
    // The user took qhooks' entries out by hand: the file is theirs as it is, not one byte is changed.
    next = file.bytes;
    lines.push(`${record.file}: qhooks' entries are no longer there (removed by hand?); left the file untouched, forgot the install`);
  } else {
    const removed = removeEntries(file.bytes.toString("utf8"), record, record.file, hostKeys(hostDialect(record.host)));
    const empty = Object.keys(parseDocument(removed.text, record.file)).length === 0;
    next = empty && !record.before.existed ? null : Buffer.from(removed.text);
    const taken = record.entries.length - removed.notFound.length;
    lines.push(
      `${record.file} changed since install: removed only qhooks' ${taken} entr${taken === 1 ? "y" : "ies"}${Object.keys(record.settings).length ? ` and ${Object.keys(record.settings).join(", ")}` : ""}, kept everything else`,
    );
    if (removed.notFound.length) lines.push(`qhooks' entries for ${removed.notFound.join(", ")} were changed by hand since install: left in place`);
  }
  if (dryRun) {
    if (file.bytes !== null) lines.push(unifiedDiff(record.file, file.bytes.toString("utf8"), next?.toString("utf8") ?? null));
    lines.push(`(dry run: nothing was changed; uninstall would also remove ${recordPath})`);
    return lines;
  }
  if (file.bytes !== null && next !== file.bytes) replaceFile(file, next);
  if (next === null && !existsSync(record.file)) removeEmptyDirs(record.createdDirs);
  removeInstallRecord(recordPath);
  return lines;
}

/** Whether none of the entries install wrote is in the file any more, as written (a file qhooks cannot read counts as none). */
function noneLeft(bytes: Buffer, record: InstallRecord): boolean {
  const removed = (() => {
    try {
      return removeEntries(bytes.toString("utf8"), record, record.file, hostKeys(hostDialect(record.host)));
    } catch {
      return null;
    }
  })();
  if (removed === null || removed.notFound.length !== record.entries.length) return false;
  // Top-level settings install set (a managed drop-in's) that are still there are still qhooks' to take out.
  const document = parseDocument(bytes.toString("utf8"), record.file);
  return Object.entries(record.settings).every(([key, value]) => !isDeepStrictEqual(document[key], value));
}

/**
 * The remembered dialect this install wrote, taken back while it is as install left it; one the person set since
 * (`qhooks config dialect`) stays.
 */
function forgetDialect(o: UninstallOptions, host: Dialect): string[] {
  const read = readConfig(o.homeDir);
  const remembered = rememberedDialect(read);
  if (remembered === null || remembered.dialect !== host || remembered.setBy !== "install") return [];
  if (o.dryRun) return [`(uninstall would also forget the dialect ${host} in ${remembered.path}, which install remembered)`];
  try {
    writeDialect(o.homeDir, null);
    return [`Forgot the dialect ${host} install remembered (${remembered.path})`];
  } catch (e) {
    return [`warning: ${messageOf(e)}: the dialect ${host} stays remembered (qhooks config dialect --unset forgets it)`];
  }
}
