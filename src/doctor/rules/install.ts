import { existsSync } from "node:fs";
import { managedInstall } from "../installedEntries.js";
import type { DoctorRule } from "../rule.js";

export const installEventMissing: DoctorRule = {
  id: "install-event-missing",
  level: "error",
  summary:
    "qhooks is installed in front of the host (managed), but not on an event a configured hook uses: the host never calls qhooks there, so the hook never runs",
  fix: "run qhooks install again: it puts an entry on every event of the host",
  *check(context) {
    const record = managedInstall(context);
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

export const installCliMissing: DoctorRule = {
  id: "install-cli-missing",
  level: "error",
  summary: "the node or the qhooks script a managed install's entries start is gone: every entry fails to start, and no hook runs",
  fix: "run qhooks install again from the qhooks you use now, or qhooks uninstall",
  *check(context) {
    const record = managedInstall(context);
    if (record === null) return;
    for (const path of [record.node, record.cli])
      if (!existsSync(path))
        yield { place: { settingsLevel: "managed", file: record.file, path: null }, message: `${path}, which every entry of qhooks' install starts, is gone` };
  },
};
