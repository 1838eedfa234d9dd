import { existsSync, realpathSync } from "node:fs";
import type { DeclaredHook } from "../../core/hookDescriptor.js";
import { QhooksError } from "../../errors.js";
import { isQhooksEntry } from "../../core/selfCall.js";
import { INSTALL_SCOPES } from "../../install/installPaths.js";
import type { InstallRecord } from "../../install/installRecord.js";
import { installOf } from "../installedEntries.js";
import type { ProgramRef } from "../commandPrograms.js";
import type { DoctorContext, DoctorRule, FindingPlace } from "../rule.js";

export const installEventMissing: DoctorRule = {
  id: "install-event-missing",
  level: "error",
  summary:
    "qhooks is installed in front of the host (managed), but not on an event a configured hook uses: the host never calls qhooks there, so the hook never runs",
  fix: "run qhooks install again: it puts an entry on every event of the host",
  *check(context) {
    let record: InstallRecord | null;
    try {
      record = installOf(context, "managed");
    } catch (e) {
      // A record that cannot be read is install-cli-missing's to say, once.
      if (e instanceof QhooksError) return;
      throw e;
    }
    if (record === null) return;
    const installed = new Set(record.entries.map((e) => e.event));
    for (const hook of context.snapshot.hooks)
      if (!installed.has(hook.event))
        yield {
          hook,
          message: `qhooks' install in ${record.file} has no ${hook.event} entry: ${context.host.name} never calls qhooks for ${hook.event}, so this hook never runs`,
        };
  },
};

/** One settings file holding qhooks' entries: where it is, how many, what they start that is gone, and its install. */
interface EntriesFile {
  place: FindingPlace;
  entries: number;
  readonly gone: Set<string>;
  install: InstallRecord | null;
}

const realOf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** What a program position of a qhooks entry names that cannot start: a missing path, a name not on PATH. */
function goneOf(context: DoctorContext, ref: ProgramRef): string | null {
  if (ref.kind === "name") return context.which(ref.name) === null ? `${ref.name} (not on PATH)` : null;
  if (ref.kind !== "path") return null;
  const probe = context.probe(ref.path);
  return probe.state === "ok" || probe.state === "unreadable" ? null : ref.path;
}

export const installCliMissing: DoctorRule = {
  id: "install-cli-missing",
  level: "error",
  summary:
    "the node or the qhooks script that qhooks' entries in a settings file start is gone (npm runs no uninstall script): every entry fails to start, so no hook runs (managed) or no event is recorded (user); one finding per file",
  fix: "run qhooks install again from the qhooks you use now, or qhooks uninstall",
  *check(context) {
    const files = new Map<string, EntriesFile>();
    const fileOf = (path: string, place: FindingPlace): EntriesFile => {
      const key = realOf(path);
      let file = files.get(key);
      if (file === undefined) files.set(key, (file = { place, entries: 0, gone: new Set(), install: null }));
      return file;
    };
    // The entries as the host's files hold them (an install's, or written by hand, or by an install whose record is gone).
    for (const hook of context.commandHooks) {
      if (!isQhooksEntry(hook.command)) continue;
      const path = context.sourcePathOf(hook) ?? hook.file;
      const file = fileOf(path, { settingsLevel: hook.plugin ? "plugin" : hook.level, file: hook.file, path: null });
      file.entries++;
      for (const ref of context.programs(hook)) {
        const gone = goneOf(context, ref);
        if (gone !== null) file.gone.add(gone);
      }
    }
    // The installs as their records say (a managed drop-in is no level qhooks reads).
    for (const scope of INSTALL_SCOPES) {
      let record: InstallRecord | null;
      try {
        record = installOf(context, scope);
      } catch (e) {
        // A managed folder this user cannot read: said once, and the other scope is still checked.
        if (!(e instanceof QhooksError)) throw e;
        yield {
          place: { settingsLevel: scope, file: null, path: null },
          level: "warn",
          message: `qhooks' ${scope} install could not be checked: ${e.message.replace("; nothing was changed", "")}`,
          fix: "run qhooks doctor as a user who can read it",
        };
        continue;
      }
      if (record === null) continue;
      const file = fileOf(record.file, { settingsLevel: scope, file: record.file, path: null });
      file.install = record;
      if (file.entries === 0) file.entries = record.entries.length;
      for (const path of [record.node, record.cli]) if (!existsSync(path)) file.gone.add(path);
    }
    for (const file of files.values()) {
      if (file.gone.size === 0) continue;
      const gone = [...file.gone];
      const n = file.entries;
      yield {
        place: file.place,
        message: `${gone.join(" and ")}, which ${n === 1 ? "qhooks' entry here starts" : `all ${n} of qhooks' entries here start`}, ${gone.length === 1 ? "is" : "are"} gone: ${n === 1 ? "it fails" : "each fails"} to start at every event`,
        ...(file.install === null
          ? { fix: "point the entries at the qhooks you use now (its node and dist/bin/qhooks.cjs, by absolute path), or remove them" }
          : { fix: `run qhooks install ${file.install.host} again from the qhooks you use now, or qhooks uninstall ${file.install.host}` }),
      };
    }
  },
};

/** Whether a hook is one of qhooks' own entries: install-cli-missing checks those, one finding per file. */
export const isOwnEntry = (hook: DeclaredHook): boolean => isQhooksEntry(hook.command);
