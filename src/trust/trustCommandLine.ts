import { DEFAULT_DIALECT, type Dialect } from "../hosts/hostDialect.js";
import { oneLineText } from "../text/oneLine.js";
import { shellWord } from "../text/shellWord.js";

/** What a run was configured with, to name the `qhooks trust` call that sees the same hooks. */
export interface TrustCommandParts {
  readonly projectDir: string;
  readonly dialect?: Dialect | undefined;
  /** `--settings` files, absolute; undefined when the levels were discovered. */
  readonly settingsFiles?: readonly string[] | undefined;
  /** `--plugin` folders, absolute. */
  readonly plugins?: readonly string[] | undefined;
}

/** `qhooks trust --project-dir /p [--dialect claude] [--settings F]... [--plugin D]...`, quoted for a POSIX shell. */
export function trustCommandLine(parts: TrustCommandParts): string {
  const args = ["qhooks", "trust", "--project-dir", parts.projectDir];
  if (parts.dialect !== undefined && parts.dialect !== DEFAULT_DIALECT) args.push("--dialect", parts.dialect);
  for (const file of parts.settingsFiles ?? []) args.push("--settings", file);
  for (const folder of parts.plugins ?? []) args.push("--plugin", folder);
  return oneLineText(args.map(shellWord).join(" "), 1000);
}
