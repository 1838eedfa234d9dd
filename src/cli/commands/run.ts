import { z } from "zod";
import { runEvent } from "../../engine/runEvent.js";
import { QhooksError } from "../../errors.js";
import { MAX_PAYLOAD_BYTES } from "../../payload/parsePayload.js";
import type { EventName } from "../../schema/events.js";
import { err, readStdin } from "../io.js";
import { sayReply } from "../sayReply.js";
import { requireProjectDir, type CliContext } from "../globals.js";
import { hostDialect } from "../../hosts/hosts.js";

export const RunFlagsSchema = z.object({
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  log: z.boolean().default(true),
  format: z.enum(["json", "hook"], { error: '--format must be "json" or "hook"' }).default("json"),
  failClosed: z.boolean().default(false),
  /** false: `--no-hooks`, every hook switched off for this run. */
  hooks: z.boolean().default(true),
  /** `--ensure-server`: an installed command entry beside http ones starts a server that is down (revive.ts). */
  ensureServer: z.boolean().default(false),
});
export type RunFlags = z.infer<typeof RunFlagsSchema>;

/** `qhooks run <event>`: one payload on stdin, one outcome out. */
export async function runCommand(event: EventName, flags: RunFlags, context: CliContext): Promise<number> {
  // In front of Claude Code (--dialect claude) qhooks reads its user, project and local levels and plugins on
  // purpose; the entries that call qhooks live in Claude Code's managed settings, which qhooks never reads.
  if (flags.format === "hook" && flags.settings.length === 0 && !hostDialect(context.dialect).callsQhooksFromOutsideLevels) {
    throw new QhooksError("usage", "--format hook needs --settings FILE (or --dialect claude): qhooks must never read the settings of the agent that calls it");
  }
  // Under `install --server`, the command entries revive a dead server, so that the next http event finds one (and not
  // only the next session's SessionStart): a state file read and a signal 0 when it runs, a detached start when not.
  if (flags.ensureServer && context.env.QHOOKS_REPLAY !== "1" && context.env.QHOOKS_TEST !== "1") {
    const { reviveIfDown } = await import("../../server/revive.js");
    reviveIfDown({ homeDir: context.homeDir, command: process.execPath, args: [process.argv[1] ?? ""], env: { ...context.env } });
  }
  const projectDir = requireProjectDir(context);
  const input = await readStdin(MAX_PAYLOAD_BYTES, "qhooks run");
  const reply = await runEvent({
    event,
    input,
    format: flags.format,
    settings: flags.settings,
    plugins: flags.plugin,
    log: flags.log,
    hooks: flags.hooks,
    failClosed: flags.failClosed,
    dialect: context.dialect,
    projectDir,
    homeDir: context.homeDir,
    dbPath: context.dbPath,
    env: context.env,
    envWarnings: context.envWarnings,
    cwd: process.cwd(),
    cliScript: process.argv[1] ?? "",
    err,
  });
  return sayReply(reply);
}
