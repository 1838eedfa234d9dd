import { rmSync } from "node:fs";
import { writePrivateFile } from "../display/writePrivateFile.js";
import { QhooksError } from "../errors.js";
import type { Dialect } from "../hosts/hostDialect.js";
import { readConfig, type QhooksConfig } from "../settings/dialectConfig.js";

/**
 * Sets (or, with null, removes) the remembered dialect in `~/.qhooks/config.json`, keeping the file's other keys; a
 * file left empty is removed. A bad file is replaced: what it held could not be used anyway. The file is replaced in
 * one step, so a command reading it meanwhile sees the old file or the new one. Returns the file's path.
 */
export function writeDialect(homeDir: string, chosen: { readonly dialect: Dialect; readonly setBy: "install" | "config" } | null): string {
  const read = readConfig(homeDir);
  const { dialect: _dialect, dialectSetBy: _setBy, ...rest } = read.state === "read" ? read.config : {};
  const next: QhooksConfig = chosen === null ? rest : { ...rest, dialect: chosen.dialect, dialectSetBy: chosen.setBy };
  try {
    if (Object.keys(next).length === 0) rmSync(read.path, { force: true });
    else writePrivateFile(read.path, `${JSON.stringify(next, null, 2)}\n`);
  } catch (e) {
    throw new QhooksError("io", `cannot write ${read.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return read.path;
}
