import { createHash } from "node:crypto";
import type { FileDigests } from "./fileDigest.js";
import { namedFiles, type CommandPlace } from "./namedFiles.js";

/** A hook's content as trust sees it: what its command runs, and the bytes of the project files it names. */
export type HookPin =
  | {
      readonly state: "pinned";
      /** sha256 over the command and each named file's path and sha256: what `qhooks trust` records. */
      readonly digest: string;
      /** The named files that exist, absolute. */
      readonly files: readonly string[];
    }
  | { readonly state: "unpinnable"; readonly why: string };

/** Bumped if what the digest covers ever changes, so that an old pin can never match new content by accident. */
const PIN_FORMAT = "qhooks-trust-1";

export function pinHook(command: string, place: CommandPlace, digests: FileDigests): HookPin {
  const files: string[] = [];
  const parts: unknown[] = [PIN_FORMAT, command];
  for (const path of namedFiles(command, place)) {
    const digest = digests.of(path);
    if (digest.state === "unpinnable") return { state: "unpinnable", why: `it names ${path}, which ${digest.why}` };
    if (digest.state === "absent") continue;
    files.push(path);
    parts.push(path, digest.sha256);
  }
  // JSON of an array of strings: unambiguous wherever a part ends, whatever characters it holds.
  return { state: "pinned", digest: createHash("sha256").update(JSON.stringify(parts)).digest("hex"), files };
}
