import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import { messageOf, QhooksError } from "../errors.js";
import { configPath, readConfig } from "../settings/dialectConfig.js";
import { writeDialect } from "./rememberDialect.js";
import type { HostDialect, ManagedSettings } from "../hosts/hostDialect.js";
import type { EventName } from "../schema/events.js";
import { isQhooksSelfCall } from "../core/selfCall.js";
import { coverageOf } from "./coverage.js";
import { addEntries, hostKeys, parseDocument } from "./entriesEdit.js";
import { installRecordPath, type InstallScope } from "./installPaths.js";
import type { InstalledEntry, InstallRecord } from "./installRecord.js";
import { readInstallRecord, writeInstallRecord } from "./installRecordFile.js";
import { missingDirs, readTarget, removeEmptyDirs, replaceFile, requireWritable, sha256Of } from "./targetFile.js";
import { unifiedDiff } from "./textDiff.js";
import { unsharedPaths } from "./sharedPaths.js";
import { COMMAND_ONLY_EVENTS, failsClosed, httpHandler, MIN_CLAUDE_VERSION, TOKEN_VARIABLE, type ServerTarget } from "./serverEntries.js";
import { shellWord } from "../text/shellWord.js";

export interface InstallOptions {
  readonly host: HostDialect;
  readonly scope: InstallScope;
  readonly homeDir: string;
  readonly projectDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  /** The node and the qhooks script the entries start (absolute). */
  readonly node: string;
  readonly cli: string;
  readonly dryRun: boolean;
  /** `--server`: http entries calling the user's running server (serverEntries.ts); null: command entries. */
  readonly server: ServerTarget | null;
}

/** Seconds the entry allows beyond the longest hook it runs: qhooks' own start, its kill grace, its log. */
const MARGIN_SECONDS = 30;
/** A recorder runs no hooks: it reads the payload and appends it to the log. */
const RECORD_TIMEOUT_SECONDS = 60;

/** Where the scope writes, and how messages name it. */
export function targetOf(
  host: HostDialect,
  scope: InstallScope,
  homeDir: string,
  projectDir: string,
  managed: ManagedSettings | null,
  env: Readonly<Record<string, string | undefined>> = {},
) {
  if (scope === "managed") {
    if (managed === null) throw new QhooksError("usage", `${host.name} has no managed settings; use --scope user`);
    return { path: managed.file, shown: managed.file };
  }
  // The file the host reads where the environment moved its folder ($COPILOT_HOME, $CODEX_HOME).
  const user = host.settingsLevels(homeDir, projectDir, env).find((l) => l.level === "user")!;
  return { path: user.path, shown: user.display };
}

/**
 * `qhooks install <host>`: qhooks' entries written into the host's settings as one transaction (the file replaced in
 * one step, then the ownership record; a record that cannot be written puts the file back), or, with `dryRun`, the
 * exact change shown and nothing written. Returns the lines to print.
 */
export function install(o: InstallOptions): string[] {
  const managed = o.host.managedSettings(o.env, o.platform);
  const target = targetOf(o.host, o.scope, o.homeDir, o.projectDir, managed, o.env);
  const recordPath = installRecordPath(o.host.id, o.scope, o.homeDir, managed);
  const sudoHint = o.scope === "managed" ? ` (Claude Code's managed settings need administrator rights: run it with sudo, or use --scope user)` : "";
  if (o.server !== null && o.scope !== "managed")
    throw new QhooksError(
      "usage",
      `--server needs --scope managed: only there does ${o.host.name} run qhooks' entries alone (else every hook would run twice)`,
    );
  if (!o.dryRun) requireWritable(target.path, sudoHint);
  const previous = readInstallRecord(recordPath);
  const file = readTarget(target.path, target.shown);

  // The text install starts from: the file as it is, or (re-installing over an unchanged install) as it was before.
  let base: Buffer | null = file.bytes;
  if (previous !== null) {
    if (sha256Of(file.bytes) !== previous.afterSha256)
      throw new QhooksError(
        "usage",
        `qhooks is installed in ${target.shown}, which changed since; run qhooks uninstall ${o.host.id} first (nothing was changed)`,
      );
    base = previous.before.existed ? Buffer.from(previous.before.base64, "base64") : null;
  } else {
    refuseOwnEntries(file.bytes, target.shown, o.scope);
  }

  const coverage = o.scope === "managed" ? coverageOf(o.host, o.homeDir, o.projectDir, o.env) : null;
  const timeout = coverage ? Math.max(longestCommandDefault(o.host), Math.ceil(coverage.maxTimeoutSeconds) + MARGIN_SECONDS) : RECORD_TIMEOUT_SECONDS;
  // Where the host caps an event (Codex's 3 s on SessionEnd), the entry gets all it allows: more would be cut, with a
  // warning at each start. Elsewhere a recorder needs no more than the host's own default (Claude Code's
  // UserPromptSubmit: 30 s), a longer timeout being what doctor warns about in a hook.
  const timeoutOf = (event: EventName): number => {
    const bound = o.host.maxTimeoutSeconds?.(event) ?? null;
    if (bound !== null) return Math.min(timeout, bound);
    return coverage ? timeout : Math.min(timeout, o.host.defaultTimeoutSeconds("command", event));
  };
  const write = o.host.writeHookEntry;
  const entries: InstalledEntry[] = o.host.events.map((event) => ({
    event,
    group: write ? write({ command: entryCommand(o, event), timeoutSeconds: timeoutOf(event) }) : { hooks: handlersOf(o, event, timeoutOf(event)) },
  }));
  const settings = o.scope === "managed" ? { ...managed!.onlyManagedHooks } : {};
  const added = addEntries(base?.toString("utf8") ?? "", entries, settings, target.shown, hostKeys(o.host), o.host.newFileKeys);
  const next = Buffer.from(added.text);

  const lines: string[] = [];
  if (previous !== null && next.equals(file.bytes ?? Buffer.alloc(0)))
    return [`qhooks is already installed for ${o.host.name} in ${target.shown}; nothing changed`];
  if (o.dryRun) {
    lines.push(unifiedDiff(file.path, file.bytes?.toString("utf8") ?? null, added.text));
    const config =
      previous?.rememberedDialect !== true && noDialectRemembered(o.homeDir) ? ` and remember the dialect ${o.host.id} in ${configPath(o.homeDir)}` : "";
    lines.push(`(dry run: nothing was written; install would also record its ownership in ${recordPath}${config})`);
    return lines;
  }
  requireStarts(o);
  const remember = previous?.rememberedDialect !== true && noDialectRemembered(o.homeDir);

  const createdDirs = previous?.createdDirs ?? missingDirs(dirname(file.path));
  replaceFile(file, next);
  const record: InstallRecord = {
    format: "qhooks-install/1",
    host: o.host.id,
    scope: o.scope,
    installedAt: new Date().toISOString(),
    node: o.node,
    cli: o.cli,
    file: file.path,
    before: previous?.before ?? { existed: file.bytes !== null, base64: (file.bytes ?? Buffer.alloc(0)).toString("base64"), sha256: sha256Of(file.bytes) },
    afterSha256: sha256Of(next),
    createdDirs,
    entries,
    settings,
    createdHooksKey: added.createdHooksKey,
    createdEvents: added.createdEvents,
    rememberedDialect: previous?.rememberedDialect === true || remember,
  };
  try {
    writeInstallRecord(recordPath, record);
  } catch (e) {
    // Without its record an install could not be undone exactly: put the file back as it was.
    replaceFile({ path: file.path, bytes: next }, file.bytes);
    if (file.bytes === null) removeEmptyDirs(createdDirs);
    throw e;
  }
  return [...lines, ...installedLines(o, target.shown, timeout, coverage), ...(remember ? [rememberLine(o)] : [])];
}

/** Whether the commands a person types have no remembered dialect (a config qhooks cannot read is left alone). */
const noDialectRemembered = (homeDir: string): boolean => {
  const read = readConfig(homeDir);
  return read.state === "none" || (read.state === "read" && read.config.dialect === undefined);
};

/**
 * Remembers the installed host as the dialect of the commands a person types. The install stands without it (its
 * entries name their dialect): a config that cannot be written is a warning, not a failure.
 */
function rememberLine(o: InstallOptions): string {
  try {
    const path = writeDialect(o.homeDir, { dialect: o.host.id, setBy: "install" });
    return `Remembered ${o.host.id} as the dialect of the commands you type (${path}; qhooks config dialect changes it)`;
  } catch (e) {
    return `warning: ${messageOf(e)}: the commands you type still need --dialect ${o.host.id} (or qhooks config dialect ${o.host.id})`;
  }
}

/** ENSURE_TIMEOUT_SECONDS: `serve --ensure` waits 15 s at most for a server to start. */
const ENSURE_TIMEOUT_SECONDS = 30;

/**
 * The handlers of one event's group: the command entry, or under `--server` an http entry, except on the events
 * that stay commands (SessionStart also starts the server first; its output goes to stderr, since SessionStart's
 * stdout becomes the model's context).
 */
function handlersOf(o: InstallOptions, event: EventName, timeout: number): Record<string, unknown>[] {
  // Gemini CLI counts its timeouts in milliseconds.
  const command = { type: "command", command: entryCommand(o, event), timeout: o.host.timeoutUnit === "milliseconds" ? timeout * 1000 : timeout };
  if (o.server === null) return [command];
  if (!COMMAND_ONLY_EVENTS.has(event)) return [httpHandler(o.server, o.host.id, event, timeout)];
  // The command entries that stay also revive a dead server (run --ensure-server): the next event that runs one
  // restarts it, not only the next SessionStart.
  const reviving = { ...command, command: `${command.command} --ensure-server` };
  if (event !== "SessionStart") return [reviving];
  return [{ type: "command", command: `${shellWord(o.node)} ${shellWord(o.cli)} serve --ensure >&2`, timeout: ENSURE_TIMEOUT_SECONDS }, command];
}

/** The command line of one entry: absolute node and script, the dialect pinned, so no PATH or config can change it. */
function entryCommand(o: InstallOptions, event: EventName | "<event>"): string {
  const named = event === "<event>" ? event : hostKeys(o.host)(event);
  const start = `${shellWord(o.node)} ${shellWord(o.cli)}`;
  return o.scope === "managed" ? `${start} run ${named} --format hook --dialect ${o.host.id}` : `${start} record ${named} --dialect ${o.host.id}`;
}

/** An entry already calling qhooks (an older hand-made recipe, an install whose record is gone): the user decides. */
function refuseOwnEntries(bytes: Buffer | null, shown: string, scope: InstallScope): void {
  if (bytes === null) return;
  const text = bytes.toString("utf8");
  const document = parseDocument(text, shown);
  for (const [event, groups] of Object.entries((document.hooks ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, g) => {
      const handlers = (group as { hooks?: unknown }).hooks;
      // A host whose entries are hooks (Copilot CLI): the entry is its own handler, its command `bash` or `command`.
      const flat = !Array.isArray(handlers);
      (flat ? [group] : (handlers as unknown[])).forEach((h: unknown, i) => {
        const { command, bash } = (h ?? {}) as { command?: unknown; bash?: unknown };
        const called = [command, bash].find((c) => typeof c === "string" && isQhooksSelfCall(c));
        if (called !== undefined)
          throw new QhooksError(
            "usage",
            `${shown} already calls qhooks at hooks.${event}[${g}]${flat ? "" : `.hooks[${i}]`} (written by hand, or by an install whose record is gone); remove that entry first, nothing was changed`,
          );
      });
    });
  }
  if (scope === "managed")
    throw new QhooksError("usage", `${shown} exists and was not written by qhooks install; move it away (or merge it by hand) first, nothing was changed`);
}

/** The entry must start before it goes in: a managed install with a dead entry would leave every hook off. */
function requireStarts(o: InstallOptions): void {
  const run = spawnSync(o.node, [o.cli, "--version"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });
  if (run.status !== 0)
    throw new QhooksError(
      "io",
      `the entry would not start (${shellWord(o.node)} ${shellWord(o.cli)} --version: ${run.error?.message ?? `exit ${run.status}`}); nothing was changed`,
    );
}

function installedLines(o: InstallOptions, shown: string, timeout: number, coverage: ReturnType<typeof coverageOf> | null): string[] {
  const events = `${o.host.events.length} events`;
  if (o.scope === "user") {
    return [
      `Installed the qhooks recorder for ${o.host.name} in ${shown}: ${events} -> ${entryCommand(o, "<event>")}`,
      `${o.host.name} still runs your ${levelNames(o)}${o.host.loadsEnabledPlugins || o.host.installedPlugins !== undefined ? " and plugin" : ""} hooks itself; qhooks records every event (qhooks log, replay) and runs none of them.`,
      ...(o.host.managedSettings(o.env, o.platform) !== null ? [`To put qhooks in front of every hook: sudo qhooks install ${o.host.id} --scope managed`] : []),
      `Undo: qhooks uninstall ${o.host.id}`,
    ];
  }
  const lines = [
    o.server === null
      ? `Installed qhooks for ${o.host.name}, for every user of this machine, in ${shown}: ${events} -> ${entryCommand(o, "<event>")} (timeout ${timeout} s)`
      : `Installed qhooks for ${o.host.name}, for every user of this machine, in ${shown}: ${events} -> POST ${o.server.url}/hook/${o.host.id} (timeout ${timeout} s)`,
    ...(o.server === null ? [] : serverLines(o, o.server)),
    `${Object.keys(o.host.managedSettings(o.env, o.platform)!.onlyManagedHooks).join(", ")}: ${o.host.name} runs only managed hooks; qhooks runs the user, project, local and plugin hooks (${coverage!.hooks} here now${coverage!.levels.length ? `: ${coverage!.levels.join(", ")}` : ""}).`,
  ];
  for (const line of coverage!.notRunnable) lines.push(`Not run by qhooks from the CLI: ${line}`);
  for (const path of unsharedPaths([o.node, o.cli]))
    lines.push(`warning: ${path} is not readable and runnable by every account: other users' sessions cannot start qhooks`);
  lines.push(`Undo: sudo qhooks uninstall ${o.host.id}`);
  return lines;
}

/** The host's settings levels, for messages: `user, project, local` (each once: Copilot CLI has files of each). */
const levelNames = (o: InstallOptions): string => [...new Set(o.host.settingsLevels(o.homeDir, o.projectDir, o.env).map((l) => l.level))].join(", ");

/** The longest time the host gives a command hook that names none, over its events: the entry must allow as much. */
const longestCommandDefault = (host: HostDialect): number => Math.max(...host.events.map((event) => host.defaultTimeoutSeconds("command", event)));

/** What `--server` adds to install's report: the events kept as commands, the fail policy, the secret's variable. */
function serverLines(o: InstallOptions, server: ServerTarget): string[] {
  const commands = o.host.events.filter((e) => COMMAND_ONLY_EVENTS.has(e));
  const closed = o.host.events.filter((e) => !COMMAND_ONLY_EVENTS.has(e) && failsClosed(e));
  return [
    `Command entries (${entryCommand(o, "<event>")} --ensure-server) stay on ${commands.join(", ")}; each starts the server again when it is down, and SessionStart also runs qhooks serve --ensure first.`,
    server.hostVersion.kind === "ok"
      ? `Claude Code ${server.hostVersion.version} has http hooks with onFailure (${MIN_CLAUDE_VERSION} or later).`
      : `warning: could not check Claude Code's version (${server.hostVersion.kind === "unknown" ? server.hostVersion.why : server.hostVersion.version}): --server needs ${MIN_CLAUDE_VERSION} or later; an older one lets the guarded events through when the server is down.`,
    `When the server is down or cannot judge, ${closed.join(", ")} block (onFailure: "block"); the other events go on (Stop and SubagentStop never block on a failure: the agent would loop).`,
    server.tokenExported
      ? `Claude Code sends the secret from $${TOKEN_VARIABLE} (it is set here).`
      : `Claude Code sends the secret from $${TOKEN_VARIABLE}, which is not set here: put export ${TOKEN_VARIABLE}="$(cat ${server.tokenFile})" in your shell's profile, or every guarded event is blocked.`,
  ];
}
