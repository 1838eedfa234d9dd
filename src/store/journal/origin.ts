import { hostname, userInfo } from "node:os";
import { wellFormed } from "./hashFormat.js";

/**
 * Where a record was written: the machine (its host name) and the OS user of the process appending it. Read once
 * per process (a dispatch appends a record or two, and the host name does not change under it). The writer (the
 * log's id) and the record's number in its origin log are its chain's id and seq, which the hash already covers.
 */
export interface RecordOrigin {
  readonly machine: string | null;
  readonly user: string | null;
}

let cached: RecordOrigin | undefined;

export function localOrigin(): RecordOrigin {
  cached ??= { machine: nonEmpty(hostname()), user: osUser() };
  return cached;
}

function osUser(): string | null {
  try {
    return nonEmpty(userInfo().username);
  } catch {
    // No entry in the password database (a container running under an arbitrary uid): the environment may know.
    return nonEmpty(process.env.USER ?? process.env.USERNAME ?? "");
  }
}

const nonEmpty = (text: string): string | null => (text === "" ? null : wellFormed(text));
