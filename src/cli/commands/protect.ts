import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { loadSettings } from "../../settings/loadSettings.js";
import { discoverSettings } from "../../settings/settingsSources.js";
import type { EraseSelector, Leftover } from "../../store/eventLog.js";
import { openStore } from "../../store/openStore.js";
import type { CliContext } from "../globals.js";
import { out, warn } from "../io.js";
import { parseTimeArg } from "../timeArg.js";

export const EraseFlagsSchema = z.object({
  seq: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, { error: "--seq: expected an event's seq (a whole number from 1)" })
    .optional(),
  session: z.string().min(1, { error: "--session: expected a session id" }).optional(),
  pattern: z.string().min(1, { error: "--pattern: expected the text to erase (not empty)" }).optional(),
  why: z.string().max(200, { error: "--why: at most 200 characters" }).optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});

/** `qhooks erase --seq N | --session S | --pattern P`: the content of those events goes; the chain still verifies. */
export async function eraseCommand(flags: z.infer<typeof EraseFlagsSchema>, context: CliContext): Promise<number> {
  const given = [flags.seq, flags.session, flags.pattern].filter((f) => f !== undefined).length;
  if (given !== 1) throw new QhooksError("usage", "erase needs exactly one of --seq N, --session ID, --pattern TEXT");
  const selector: EraseSelector =
    flags.seq !== undefined ? { seq: Number(flags.seq) } : flags.session !== undefined ? { sessionId: flags.session } : { pattern: flags.pattern! };
  const log = openStore(context.dbPath, { mustExist: true, writer: context.env.QHOOKS_WRITER || undefined });
  try {
    const result = await log.erase(selector, flags.why ?? null, { dryRun: flags.dryRun });
    const events = `${result.events} event${result.events === 1 ? "" : "s"} (${result.records} record${result.records === 1 ? "" : "s"})`;
    if (flags.json) out(JSON.stringify(flags.dryRun ? { dryRun: true, ...result } : result));
    else if (result.events === 0) out("Nothing to erase: no event matches that has content left.");
    else if (flags.dryRun) out(`Would erase the content of ${events}; nothing was changed (--dry-run).`);
    else out(`Erased the content of ${events}; qhooks verify reports them as erased.`);
    sayLeftovers(result.leftovers);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

export const PruneFlagsSchema = z.object({
  before: z.string().optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
  utc: z.boolean().default(false),
});

/** `qhooks prune --before 90d`: records older than that are deleted; the chain is checked from the oldest kept. */
export async function pruneCommand(flags: z.infer<typeof PruneFlagsSchema>, context: CliContext): Promise<number> {
  let spec = flags.before;
  let from = "--before";
  if (spec === undefined) {
    spec = loadSettings(discoverSettings(context.homeDir, context.projectDir, context.dialect, context.env)).retention ?? undefined;
    from = "qhooks.retention";
  }
  if (spec === undefined)
    throw new QhooksError("usage", 'prune needs to know how old: --before 90d (or set "qhooks": {"retention": "90d"} in your user-level settings)');
  const before = parseTimeArg(from, spec, { utc: flags.utc });
  if (before.getTime() > Date.now()) throw new QhooksError("usage", `${from} ${JSON.stringify(spec)}: in the future; that would delete every record`);
  const log = openStore(context.dbPath, { mustExist: true, writer: context.env.QHOOKS_WRITER || undefined });
  try {
    const result = await log.prune(before, { dryRun: flags.dryRun });
    if (flags.json) out(JSON.stringify(flags.dryRun ? { dryRun: true, ...result } : result));
    else if (result.records === 0) out(`Nothing older than ${before.toISOString()} to prune.`);
    else if (flags.dryRun)
      out(
        `Would prune ${result.records} records (${result.events} events) older than ${before.toISOString()}; the log would start at record ${result.from}. Nothing was changed (--dry-run).`,
      );
    else {
      const mb = (n: number | null) => (n === null ? "?" : `${(n / 1024 / 1024).toFixed(1)} MB`);
      // A PostgreSQL log gives its space back to the server as it vacuums, not at once: no size to report.
      const size = result.bytesBefore === null ? "" : `, ${mb(result.bytesBefore)} -> ${mb(result.bytesAfter)}`;
      out(`Pruned ${result.records} records (${result.events} events) older than ${before.toISOString()}; the log starts at record ${result.from} now${size}.`);
    }
    sayLeftovers(result.leftovers);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/** The user asked for the text to be gone: where it may still be is said on stderr (in --json, also in `leftovers`). */
function sayLeftovers(leftovers: readonly Leftover[]): void {
  for (const leftover of leftovers) warn(leftoverText(leftover));
}

export function leftoverText(l: Leftover): string {
  switch (l.kind) {
    case "file-not-rewritten":
      return `the log file ${l.file} could not be rewritten (${l.why}): the removed text may remain in its free pages; run the command again when the log is less busy`;
    case "wal-in-use":
      return `another process was reading the log: the removed text stays in ${l.file} and the log file's old pages until the last process using the log closes it (or the next qhooks erase)`;
    case "server-copies":
      return "PostgreSQL keeps the old row versions: the removed text stays in the table's free space until VACUUM reuses it, and in the server's write-ahead log, archives, replicas and backups, which qhooks cannot reach (VACUUM FULL qhooks_journal rewrites the table, locking out writers while it runs)";
  }
}
