import { createHash } from "node:crypto";
import { FileDigests, type FileDigest } from "./fileDigest.js";
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

/** Commands remembered per engine; a settings file edited for days cannot grow this past it. */
const MAX_REMEMBERED = 1000;

/**
 * Pins of hook commands. In a long-lived engine each command's named files are worked out once (the rule depends on
 * the command and where it runs only), and its pin is computed again only when a file's hash changed.
 */
export class HookPins {
  private readonly named = new Map<string, readonly string[]>();
  private readonly last = new Map<string, { readonly parts: readonly FileDigest[]; readonly pin: HookPin }>();

  constructor(private readonly digests: FileDigests = new FileDigests()) {}

  of(command: string, place: CommandPlace): HookPin {
    const key = `${place.pluginRoot ?? ""}\0${command}`;
    let files = this.named.get(key);
    if (files === undefined) {
      if (this.named.size >= MAX_REMEMBERED) this.named.clear();
      this.named.set(key, (files = namedFiles(command, place)));
    }
    const parts = files.map((path) => this.digests.of(path));
    const last = this.last.get(key);
    // FileDigests hands out the same object for as long as it remembers a file unchanged.
    if (last !== undefined && last.parts.length === parts.length && last.parts.every((d, i) => d === parts[i])) return last.pin;
    const pin = pinOf(command, files, parts);
    if (this.last.size >= MAX_REMEMBERED) this.last.clear();
    this.last.set(key, { parts, pin });
    return pin;
  }
}

function pinOf(command: string, paths: readonly string[], digests: readonly FileDigest[]): HookPin {
  const files: string[] = [];
  const parts: unknown[] = [PIN_FORMAT, command];
  for (let i = 0; i < paths.length; i++) {
    const digest = digests[i]!;
    if (digest.state === "unpinnable") return { state: "unpinnable", why: `it names ${paths[i]}, which ${digest.why}` };
    if (digest.state === "absent") continue;
    files.push(paths[i]!);
    parts.push(paths[i], digest.sha256);
  }
  // JSON of an array of strings: unambiguous wherever a part ends, whatever characters it holds.
  return { state: "pinned", digest: createHash("sha256").update(JSON.stringify(parts)).digest("hex"), files };
}
