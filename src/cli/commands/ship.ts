import { hostname } from "node:os";
import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { isPostgresUrl } from "../../store/openStore.js";
import { checkDatabaseName } from "../../store/postgres/databaseName.js";
import { wholeNumberFlag } from "../filterFlags.js";
import { parseInterval } from "../intervalArg.js";
import { DEFAULT_GIVE_UP_AFTER, watchRounds } from "../watchRounds.js";
import { out, warn } from "../io.js";
import type { CliContext } from "../globals.js";
import { shownUrl } from "../../text/shownUrl.js";

export const ShipFlagsSchema = z.object({
  to: z.string({ error: "--to postgres://... is required" }),
  watch: z.boolean().default(false),
  interval: z.string().default("30s"),
  batch: wholeNumberFlag(1).default(5_000),
  giveUpAfter: wholeNumberFlag(1).default(DEFAULT_GIVE_UP_AFTER),
});
export type ShipFlags = z.infer<typeof ShipFlagsSchema>;

/** `qhooks ship --to URL`: copies the local log's new records to a central PostgreSQL database. */
export async function shipCommand(flags: ShipFlags, context: CliContext): Promise<number> {
  if (!isPostgresUrl(flags.to))
    throw new QhooksError("usage", `--to ${JSON.stringify(shownUrl(flags.to))}: expected a PostgreSQL URL (postgres://user@host:5432/database)`);
  if (isPostgresUrl(context.dbPath)) throw new QhooksError("usage", "ship copies a local log file: --db (or $QHOOKS_DB) names a database, not a file");
  const name = checkDatabaseName(flags.to);
  if ("refused" in name) throw new QhooksError("usage", `--to ${name.refused}`);
  if (name.warning !== null) warn(name.warning);
  const interval = parseInterval("--interval", flags.interval);
  const { shipLog, CLOCK_TOLERANCE_MS } = await import("../../store/ship.js");
  const to = shownUrl(flags.to);
  const { shippedHeadSigner } = await import("./evidence.js");
  const once = async () => {
    const done = await shipLog({ from: context.dbPath, to: flags.to, batch: flags.batch, sign: shippedHeadSigner(context.dbPath) });
    out(
      done.shipped > 0
        ? `shipped ${done.shipped} records of log ${done.logId} to ${to} (through record ${done.head})`
        : `up to date: log ${done.logId} has ${done.head} records in ${to}`,
    );
    if (done.headsProblem !== null) warn(`${done.headsProblem}: the heads from there on were not sent (qhooks verify checks the log)`);
    if (done.emptied)
      warn(
        `${to} had no record of log ${done.logId}, though an earlier ship sent them there: removed there whole, or the URL names another database now; shipped again from the start`,
      );
    else if (done.headsRestored > 0)
      warn(
        `${done.headsRestored} signed head${done.headsRestored === 1 ? " was" : "s were"} missing centrally and ${done.headsRestored === 1 ? "was" : "were"} sent again: someone with the database removed them after an earlier ship (qhooks verify there names the records they cover)`,
      );
    if (done.sameHost.length > 0)
      warn(
        `log ${done.sameHost.join(", ")} also ships to ${to} from a machine named ${hostname()}: the host name alone does not tell them apart there (--writer does; rename one machine to keep --machine useful)`,
      );
    if (Math.abs(done.clockAheadMs) > CLOCK_TOLERANCE_MS)
      warn(
        `this machine's clock is ${duration(Math.abs(done.clockAheadMs))} ${done.clockAheadMs > 0 ? "ahead of" : "behind"} the database server's: its events' times are off by as much`,
      );
    else if (done.futureRecord !== null)
      warn(
        `record ${done.futureRecord.seq} of log ${done.logId} is dated ${done.futureRecord.ts}, more than an hour after the database server's clock: the clock that wrote it was ahead`,
      );
    if (done.skipped > 0) warn(`${done.skipped} records of log ${done.logId} were pruned from it before they shipped: the central database goes on after them`);
  };
  if (!flags.watch) {
    await once();
    return EXIT.ok;
  }
  // Continuous: a round every interval; a server that is away is a warning and the next round tries again, up to
  // --give-up-after rounds in a row. A log that fails its chain check stops the loop (shipping it again would fail
  // the same way).
  await watchRounds(once, {
    intervalMs: interval,
    interval: flags.interval,
    giveUpAfter: flags.giveUpAfter,
    fatal: (e) => e.code === "integrity" || e.code === "usage",
  });
  return EXIT.ok;
}

/** `3h 5m`, `45m`: how far apart two clocks are. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const h = Math.floor(minutes / 60);
  return h > 0 ? `${h}h ${minutes % 60}m` : `${minutes}m`;
}
