import { closeSync, constants, fchmodSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { MAX_SETTINGS_BYTES, readRegularFile } from "../../settings/readSettingsSource.js";
import { basename, dirname, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { describeJsonError } from "../../json/describeJsonError.js";
import { isJsonObject, type JsonObject } from "../../json/jsonObject.js";
import type { EventName } from "../../schema/events.js";
import { parseSettingsFile } from "../../settings/parseSettingsFile.js";
import { discoverSettings, type SettingsSource } from "../../settings/settingsSources.js";
import { oneLineText } from "../../text/oneLine.js";
import { isQhooksSelfCall } from "../../core/selfCall.js";
import { requireProjectDir, type CliContext } from "../globals.js";
import { addProperty, appendToArray, styleOf } from "../../json/jsonInsert.js";
import { out } from "../io.js";
import { hostDialect } from "../../hosts/hosts.js";
import type { HostDialect } from "../../hosts/hostDialect.js";
import { flatHookEntry } from "./hooksAddFlat.js";

export const HooksAddFlagsSchema = z.object({
  command: z.string(),
  matcher: z.string().optional(),
  level: z.enum(["user", "project", "local"]).default("user"),
  file: z.string().optional(),
  timeout: z.coerce.number({ error: "expected a positive number of seconds" }).optional(),
  name: z.string().optional(),
  shadow: z.boolean().optional(),
});
export type HooksAddFlags = z.infer<typeof HooksAddFlagsSchema>;

/**
 * `qhooks hooks add EVENT --command C [--matcher M] [--level L | --file F]`: one handler added to one settings
 * file, as a text insertion (jsonInsert.ts), so that everything else in it stays byte for byte: other settings,
 * key order, indentation, line endings, number forms. The new entry goes through the
 * same per-entry validation as every settings file: what qhooks would warn about is refused before anything is
 * written. A file qhooks cannot read (not JSON) is left alone.
 */
export function hooksAddCommand(event: EventName, flags: HooksAddFlags, context: CliContext): number {
  const source = target(flags, context);
  // An entry that calls qhooks on the host's events, in a file qhooks reads as one of the host's levels, would have
  // qhooks run itself; the settings reader skips such entries, so it would silently do nothing there.
  if (source.explicit !== true && isQhooksSelfCall(flags.command))
    throw new QhooksError(
      "usage",
      `not added: ${oneLineText(source.display)} is read by qhooks itself, and this command calls qhooks (it would run itself); use qhooks install ${context.dialect}`,
    );
  const host = hostDialect(context.dialect);
  const handler = {
    type: "command",
    command: flags.command,
    // `--timeout` is in seconds; a host whose files count milliseconds (Gemini CLI) gets its own unit.
    ...(flags.timeout !== undefined && { timeout: host.timeoutUnit === "milliseconds" ? Math.round(flags.timeout * 1000) : flags.timeout }),
    ...(flags.name !== undefined && { name: flags.name }),
    ...(flags.shadow && { mode: "shadow" }),
  };
  const matcher = flags.matcher;
  const shownPath = oneLineText(source.display);
  // A host whose files hold one hook per entry under its own event names (Cursor, Copilot CLI) gets its own shape.
  const flat = flags.file === undefined ? flatHookEntry(host, event, flags) : null;
  // A host of matcher groups under its own event names (Gemini CLI's `BeforeTool`) gets its name; `--file` is qhooks' shape.
  const key = flags.file === undefined ? groupKey(host, event) : event;

  const realPath = existingRealPath(source.path);
  const before = realPath === null ? "" : readSettingsText(realPath, source.path);
  const plan = flat === null ? planEdit(before, key, matcher, handler, source) : planFlatEdit(before, flat, source);
  if (plan.kind === "present") {
    out(`Already in ${shownPath}: ${plan.path} runs the same command for ${event}${matcher ? ` ${oneLineText(matcher)}` : ""}; nothing changed.`);
    return EXIT.ok;
  }
  // Exactly the checks qhooks applies when it reads the file: a warning about the new entry means it would not
  // apply as asked, so nothing is written.
  const known = new Set(parseSettingsFile(source, before).warnings);
  const added = parseSettingsFile(source, plan.text).warnings.filter((w) => !known.has(w));
  if (added.length > 0) throw new QhooksError("usage", `not added, as qhooks would not read it as given: ${added[0]!}`);

  writeAtomically(realPath ?? source.path, plan.text, before);
  out(`Added to ${shownPath} at ${plan.path}: ${event}${matcher ? ` ${oneLineText(matcher)}` : ""} -> ${oneLineText(flags.command)}`);
  return EXIT.ok;
}

function target(flags: HooksAddFlags, context: CliContext): SettingsSource {
  if (flags.file !== undefined) {
    const path = resolve(flags.file);
    return { level: path, path, display: path, explicit: true };
  }
  const projectDir = flags.level === "user" ? context.projectDir : requireProjectDir(context);
  // The environment may move the host's files ($COPILOT_HOME, $CODEX_HOME...): the file written is the one it reads.
  // The host's own hooks files: not its JSONC settings (Copilot CLI's settings.json, whose comments a rewrite could
  // not keep) nor another host's file it reads too (Claude Code's, under Copilot CLI).
  const found = discoverSettings(context.homeDir, projectDir, context.dialect, context.env).find(
    (s) => s.level === flags.level && s.comments !== true && s.ownedBy === undefined,
  );
  if (found === undefined)
    throw new QhooksError("usage", `${hostDialect(context.dialect).name} has no ${flags.level} level qhooks adds hooks to; use --level user or project`);
  return found;
}

type Plan = { readonly kind: "edit"; readonly text: string; readonly path: string } | { readonly kind: "present"; readonly path: string };

const sameMatcher = (a: unknown, b: string | undefined) => {
  const norm = (m: unknown) => (typeof m === "string" && m.trim() !== "*" ? m.trim() : "");
  return (a === undefined || typeof a === "string") && norm(a) === norm(b);
};

/** The key of an event in a host's `hooks` section; one line when the host has no such event. */
function groupKey(host: HostDialect, event: EventName): string {
  const key = host.eventNames.toHost.get(event);
  if (key === undefined) throw new QhooksError("usage", `${host.name} has no ${event} event: nothing was added`);
  return key;
}

/** The file's new text: the handler appended to the group with the same matcher, else in a new group. */
function planEdit(text: string, event: string, matcher: string | undefined, handler: Record<string, unknown>, source: SettingsSource): Plan {
  const group = { ...(matcher !== undefined && { matcher }), hooks: [handler] };
  if (text.trim() === "") return { kind: "edit", text: `${JSON.stringify({ hooks: { [event]: [group] } }, null, 2)}\n`, path: `hooks.${event}[0].hooks[0]` };

  const { document, hooks, refuse } = editableDocument(text, source);
  const groups = isJsonObject(hooks) ? hooks[event] : undefined;
  if (groups !== undefined && !Array.isArray(groups)) return refuse(`hooks.${event}: expected an array of matcher groups`);

  // What the file must read as once edited: the same document with the one addition.
  const expected = structuredClone(document) as { hooks?: Record<string, { hooks: unknown[] }[]> };
  const style = styleOf(text);
  let plan: Plan;
  try {
    if (groups === undefined) {
      (expected.hooks ??= {})[event] = [group];
      const edited = hooks === undefined ? addProperty(text, [], "hooks", { [event]: [group] }, style) : addProperty(text, ["hooks"], event, [group], style);
      plan = { kind: "edit", text: edited, path: `hooks.${event}[0].hooks[0]` };
    } else {
      const at = groups.findIndex((g: unknown) => isJsonObject(g) && sameMatcher(g.matcher, matcher) && Array.isArray(g.hooks));
      if (at === -1) {
        expected.hooks![event]!.push(group);
        plan = { kind: "edit", text: appendToArray(text, ["hooks", event], group, style), path: `hooks.${event}[${groups.length}].hooks[0]` };
      } else {
        const handlers = (groups[at] as { hooks: unknown[] }).hooks;
        const same = handlers.findIndex((h) => isJsonObject(h) && h.command === handler.command);
        if (same !== -1) return { kind: "present", path: `hooks.${event}[${at}].hooks[${same}]` };
        expected.hooks![event]![at]!.hooks.push(handler);
        plan = {
          kind: "edit",
          text: appendToArray(text, ["hooks", event, at, "hooks"], handler, style),
          path: `hooks.${event}[${at}].hooks[${handlers.length}]`,
        };
      }
    }
  } catch {
    // The text does not hold what JSON.parse read where it read it.
    return refuse("cannot be edited safely (is a key given twice?)");
  }
  return checkedEdit(plan, expected, refuse);
}

/** The file's new text in a one-hook-per-entry host's shape: the entry appended under the host's event name. */
function planFlatEdit(
  text: string,
  flat: { hostEvent: string; entry: Record<string, unknown>; newFileKeys: Record<string, unknown>; same: (e: unknown) => boolean },
  source: SettingsSource,
): Plan {
  const { hostEvent, entry } = flat;
  const at = (i: number) => `hooks.${hostEvent}[${i}]`;
  if (text.trim() === "") return { kind: "edit", text: `${JSON.stringify({ ...flat.newFileKeys, hooks: { [hostEvent]: [entry] } }, null, 2)}\n`, path: at(0) };
  const { document, hooks, refuse } = editableDocument(text, source);
  const entries = isJsonObject(hooks) ? hooks[hostEvent] : undefined;
  if (entries !== undefined && !Array.isArray(entries)) return refuse(`hooks.${hostEvent}: expected an array of hooks`);
  const present = entries?.findIndex(flat.same) ?? -1;
  if (present !== -1) return { kind: "present", path: at(present) };
  const expected = structuredClone(document) as { hooks?: Record<string, unknown[]> };
  const style = styleOf(text);
  let plan: Plan;
  try {
    if (entries === undefined) {
      (expected.hooks ??= {})[hostEvent] = [entry];
      const edited =
        hooks === undefined ? addProperty(text, [], "hooks", { [hostEvent]: [entry] }, style) : addProperty(text, ["hooks"], hostEvent, [entry], style);
      plan = { kind: "edit", text: edited, path: at(0) };
    } else {
      expected.hooks![hostEvent]!.push(entry);
      plan = { kind: "edit", text: appendToArray(text, ["hooks", hostEvent], entry, style), path: at(entries.length) };
    }
  } catch {
    return refuse("cannot be edited safely (is a key given twice?)");
  }
  return checkedEdit(plan, expected, refuse);
}

type Refuse = (what: string) => never;

/** A settings file's text parsed for an edit: an object whose `hooks`, if any, is an object; else one line. */
function editableDocument(text: string, source: SettingsSource): { document: JsonObject; hooks: unknown; refuse: Refuse } {
  const refuse: Refuse = (what) => {
    throw new QhooksError("usage", `${oneLineText(source.display)}: ${what}; fix it first (nothing was changed)`);
  };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (e) {
    throw new QhooksError(
      "usage",
      `${oneLineText(source.display)} is not valid JSON (${describeJsonError(text, e)}), so qhooks skips it; fix it first (nothing was changed)`,
    );
  }
  if (!isJsonObject(document)) return refuse("expected a JSON object");
  const hooks = document.hooks;
  if (hooks !== undefined && !isJsonObject(hooks)) return refuse("hooks: expected an object");
  return { document, hooks, refuse };
}

/**
 * The edit, if its text reads back as the expected document; a file the text edit cannot follow (a key given twice:
 * JSON.parse keeps the last, an editor shows the first) is refused.
 */
function checkedEdit(plan: Plan, expected: unknown, refuse: Refuse): Plan {
  let reread: unknown;
  try {
    reread = plan.kind === "edit" ? JSON.parse(plan.text) : undefined;
  } catch {
    reread = undefined;
  }
  if (!isDeepStrictEqual(reread, expected)) return refuse("cannot be edited safely (is a key given twice?)");
  return plan;
}

/** The real file behind a path (a settings file is often a symlink into a dotfiles repository); null if none yet. */
/** The text of an existing settings file, read as qhooks reads settings: a regular file of at most 1 MiB. */
function readSettingsText(realPath: string, shown: string): string {
  const read = readRegularFile(realPath, MAX_SETTINGS_BYTES);
  if (read.state === "read") return read.bytes.toString("utf8");
  if (read.state === "missing") return "";
  if (read.state === "not-regular") throw new QhooksError("usage", `${shown} is not a regular file; nothing was changed`);
  if (read.state === "too-large")
    throw new QhooksError("usage", `${shown} is more than the ${MAX_SETTINGS_BYTES} bytes a settings file may have (qhooks skips it); nothing was changed`);
  throw new QhooksError("io", `cannot read ${shown}: ${read.code}`);
}

function existingRealPath(path: string): string | null {
  try {
    const real = realpathSync(path);
    if (!statSync(real).isFile()) throw new QhooksError("usage", `${path} is not a regular file; nothing was changed`);
    return real;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("io", `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
}

/**
 * Replaces the file in one step (a temporary file beside it, renamed over it), keeping its mode, so that an agent
 * reading its settings meanwhile sees the old file or the new one, never half of one. A file that changed since it
 * was read (an editor saved it) is not overwritten.
 */
function writeAtomically(path: string, text: string, expected: string): void {
  const dir = dirname(path);
  let mode: number | null = null;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    // A new file: its directory may be new too (the project's .qoder/, or ~/.qoder-cn/).
    mkdirSync(dir, { recursive: true, mode: 0o755 });
  }
  const temp = join(dir, `.${basename(path)}.${process.pid}.qhooks-tmp`);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      if (mode !== null) fchmodSync(fd, mode);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Read as the settings are (bounded, never blocking): what is there now must be what was read before.
    const current = readRegularFile(path, MAX_SETTINGS_BYTES);
    const now = current.state === "read" ? current.bytes.toString("utf8") : current.state === "missing" ? "" : null;
    if (now !== expected) throw new QhooksError("io", `${path} changed while qhooks was editing it; nothing was changed, try again`);
    renameSync(temp, path);
  } catch (e) {
    try {
      unlinkSync(temp);
    } catch {
      // not created, or already renamed
    }
    if (e instanceof QhooksError) throw e;
    throw new QhooksError("io", `cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
}
