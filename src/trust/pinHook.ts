import type { PinnedSite } from "../core/runSite.js";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { canonicalJson } from "../json/canonicalHash.js";
import type { HandlerSetting } from "../schema/settings.js";
import { FileDigests, type FileDigest } from "./fileDigest.js";
import { isInside, resolveCommandFiles, type CommandFiles, type CommandPlace, type RunSite } from "./namedFiles.js";

/** A named file as pinned: its content, or, for a symbolic link that leads out of the project, where it leads. */
type Part = FileDigest | { readonly state: "elsewhere"; readonly real: string };

/** A hook's content as trust sees it: what its command runs, and the bytes of the project files it names. */
export type HookPin =
  | {
      readonly state: "pinned";
      /** sha256 over the command and each named file's path and sha256: what `qhooks trust` records. */
      readonly digest: string;
      /** The named files that exist, absolute. */
      readonly files: readonly string[];
      /** The words that run a pinned file directly, with the sha256 it was pinned with: what the spawn verifies. */
      readonly sites: readonly PinnedSite[];
    }
  | { readonly state: "unpinnable"; readonly why: string };

export type { PinnedSite };

/** Bumped if what the digest covers ever changes, so that an old pin can never match new content by accident. */
const PIN_FORMAT = "qhooks-trust-1";
/**
 * The format of a command hook that sets fields besides `command` that change what runs (`shell`): a different
 * first part, so that such a pin can never equal one of a plain command, whatever text either holds. A plain
 * command keeps the format above: hooks trusted before keep their digest.
 */
const PIN_FORMAT_WITH_FIELDS = "qhooks-trust-1+fields";

/**
 * The fields of a command handler, besides `command`, that change what runs: `shell` runs the command (a project
 * file when written as a path, pinned like one). The others (timeout, async, once, onFailure, mode, name,
 * statusMessage, id) change when the reviewed code is stopped or how its answer is used, never which code runs.
 * Empty for a plain command and for the other handler types (pinned by all their fields).
 */
export function runFieldsOf(handler: HandlerSetting | undefined): { readonly shell?: string } {
  return handler?.type === "command" && handler.shell !== undefined ? { shell: handler.shell } : {};
}

/** Commands remembered per engine; a settings file edited for days cannot grow this past it. */
const MAX_REMEMBERED = 1000;

/**
 * Pins of hook commands. In a long-lived engine each command's named files are worked out once (the rule depends on
 * the command and where it runs only), and its pin is computed again only when a file's hash changed.
 */
export class HookPins {
  private readonly named = new Map<string, CommandFiles>();
  private readonly last = new Map<string, { readonly parts: readonly Part[]; readonly pin: HookPin }>();

  constructor(private readonly digests: FileDigests = new FileDigests()) {}

  /**
   * A handler that is not a command (http, prompt, agent, mcp_tool) runs no file: its pin is every field it sets
   * (the URL with its headers and allowed variables, the prompt...), so that any edit asks for trust again.
   */
  of(command: string, place: CommandPlace, handler?: HandlerSetting): HookPin {
    if (handler !== undefined && handler.type !== "command") command = `${handler.type}\0${canonicalJson(handler)}`;
    const fields = runFieldsOf(handler);
    const key = `${place.pluginRoot ?? ""}\0${command}\0${fields.shell ?? ""}`;
    let named = this.named.get(key);
    if (named === undefined && handler !== undefined && handler.type !== "command") this.named.set(key, (named = { files: [], unresolved: null, sites: [] }));
    if (named === undefined) {
      if (this.named.size >= MAX_REMEMBERED) this.named.clear();
      const resolved = resolveCommandFiles(command, place);
      named = { files: [...new Set([...shellFiles(fields.shell, place), ...resolved.files])], unresolved: resolved.unresolved, sites: resolved.sites };
      this.named.set(key, named);
    }
    // What it runs cannot be known: it is never trusted by its text alone.
    if (named.unresolved !== null) return { state: "unpinnable", why: named.unresolved };
    const files = named.files;
    const parts = files.map((path) => this.partOf(path, place.roots));
    const last = this.last.get(key);
    // FileDigests hands out the same object for as long as it remembers a file unchanged.
    if (last !== undefined && last.parts.length === parts.length && last.parts.every((d, i) => samePart(d, parts[i]!))) return last.pin;
    const pin = pinOf(command, fields, files, parts, named.sites);
    if (this.last.size >= MAX_REMEMBERED) this.last.clear();
    this.last.set(key, { parts, pin });
    return pin;
  }

  /**
   * A path inside the project may be a symbolic link (or lie below one) that leads out of it: `.venv/bin/python` to
   * the system's Python. What it leads to is not the project's, so the link's destination is pinned rather than the
   * bytes there (hashing a system binary at every call would cost milliseconds and change with every upgrade).
   */
  private partOf(path: string, roots: readonly string[]): Part {
    let real: string;
    try {
      real = realpathSync.native(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP") return { state: "unpinnable", why: "is a loop of symbolic links" };
      if (code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG") return { state: "absent" };
      return { state: "unpinnable", why: `cannot be examined (${code ?? String(e)})` };
    }
    if (real !== path && !roots.some((root) => isInside(real, root))) return { state: "elsewhere", real };
    return this.digests.of(path);
  }
}

/** Remembered hashes are the same objects; the other parts are compared by value. */
const samePart = (a: Part, b: Part): boolean =>
  a === b ||
  (a.state === "absent" && b.state === "absent") ||
  (a.state === "elsewhere" && b.state === "elsewhere" && a.real === b.real) ||
  (a.state === "unpinnable" && b.state === "unpinnable" && a.why === b.why);

/**
 * The shell's own file when it is written as a path inside the project (`"shell": "./tools/sh"`): it runs the
 * command, so its bytes are pinned like a script's. A name looked up on PATH, or a path elsewhere, is pinned by its
 * text only (like `/bin/bash` in a command).
 */
function shellFiles(shell: string | undefined, place: CommandPlace): string[] {
  if (shell === undefined || !shell.includes("/")) return [];
  const path = isAbsolute(shell) ? resolve(shell) : resolve(place.projectDir, shell);
  return place.roots.some((root) => isInside(path, root)) ? [path] : [];
}

function pinOf(
  command: string,
  fields: { readonly shell?: string },
  paths: readonly string[],
  digests: readonly Part[],
  runSites: readonly RunSite[],
): HookPin {
  const files: string[] = [];
  const withFields = Object.keys(fields).length > 0;
  const parts: unknown[] = withFields ? [PIN_FORMAT_WITH_FIELDS, command, canonicalJson(fields)] : [PIN_FORMAT, command];
  for (let i = 0; i < paths.length; i++) {
    const digest = digests[i]!;
    if (digest.state === "unpinnable") return { state: "unpinnable", why: `it names ${paths[i]}, which ${digest.why}` };
    if (digest.state === "absent") continue;
    files.push(paths[i]!);
    parts.push(paths[i], digest.state === "elsewhere" ? `-> ${digest.real}` : digest.sha256);
  }
  // JSON of an array of strings: unambiguous wherever a part ends, whatever characters it holds.
  const sites: PinnedSite[] = [];
  for (const site of runSites) {
    const digest = digests[paths.indexOf(site.path)];
    if (digest?.state === "file") sites.push({ ...site, sha256: digest.sha256 });
  }
  return { state: "pinned", digest: createHash("sha256").update(JSON.stringify(parts)).digest("hex"), files, sites };
}
