import type { HostDialect } from "../hosts/hostDialect.js";
import { loadSettings } from "../settings/loadSettings.js";
import { planSettings } from "../settings/settingsPlan.js";

/** What the host's settings hold now, as install needs it: the longest hook timeout, and what qhooks cannot run. */
export interface Coverage {
  /** The largest timeout of any hook qhooks would run (seconds), 0 with none. */
  readonly maxTimeoutSeconds: number;
  /** How many hooks, and at which levels (user, project, local, plugin). */
  readonly hooks: number;
  readonly levels: readonly string[];
  /** One line per hook the CLI cannot run (a prompt or agent hook without an evaluator, an mcp_tool hook). */
  readonly notRunnable: readonly string[];
}

export function coverageOf(host: HostDialect, homeDir: string, projectDir: string, env: Readonly<Record<string, string | undefined>>): Coverage {
  const plan = planSettings({ homeDir, projectDir, dialect: host.id, baseDir: projectDir, env });
  const snapshot = loadSettings(plan.sources, plan.plugins);
  const evaluator = Boolean(env.QHOOKS_EVALUATOR_URL);
  const notRunnable = snapshot.hooks.flatMap((h) => {
    const where = `${h.event} ${h.name} (${h.file})`;
    if (h.kind === "mcp_tool") return [`${where}: an mcp_tool hook, which only an agent embedding qhooks can call`];
    if ((h.kind === "prompt" || h.kind === "agent") && !evaluator) return [`${where}: a ${h.kind} hook, which needs QHOOKS_EVALUATOR_URL`];
    return [];
  });
  return {
    maxTimeoutSeconds: Math.max(0, ...snapshot.hooks.map((h) => h.timeoutMs / 1000)),
    hooks: snapshot.hooks.length,
    levels: [...new Set(snapshot.hooks.map((h) => (h.plugin ? "plugin" : h.level)))],
    notRunnable,
  };
}
