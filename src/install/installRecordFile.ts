import { QhooksError } from "../errors.js";
import { InstallRecordSchema, type InstallRecord } from "./installRecord.js";
import { readTarget, replaceFile } from "./targetFile.js";

/** The ownership record at `path`, null when there is none; a damaged one is one clear line, never a guess. */
export function readInstallRecord(path: string): InstallRecord | null {
  const file = readTarget(path, path);
  if (file.bytes === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(file.bytes.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const record = InstallRecordSchema.safeParse(parsed);
  if (!record.success)
    throw new QhooksError("io", `${path} is not a qhooks install record qhooks can read; nothing was changed (remove it to forget that install)`);
  return record.data;
}

export function writeInstallRecord(path: string, record: InstallRecord): void {
  replaceFile(readTarget(path, path), Buffer.from(`${JSON.stringify(InstallRecordSchema.parse(record), null, 2)}\n`));
}

export function removeInstallRecord(path: string): void {
  replaceFile(readTarget(path, path), null);
}
