import { statSync } from "node:fs";
import { messageOf } from "../../errors.js";
import type { EraseResult, EraseSelector, Leftover, PruneResult } from "../eventLog.js";
import { guarded, upToDate, writeStep, type OpenLog } from "./logAccess.js";
import { eraseEvents, erasePlan, PRUNE_STEP_RECORDS, pruneCut, prunePlan, pruneStep } from "./maintenance.js";
import { emptyWal, rewriteFile, withSecureDelete } from "./scrub.js";

/**
 * Erase and prune as a SQLite log runs them: the projections brought up to date first, the records changed in
 * short write transactions (maintenance.ts), then the file rewritten so that what was removed leaves it (scrub.ts).
 */

export async function eraseLog(log: OpenLog, selector: EraseSelector, why: string | null): Promise<EraseResult> {
  await upToDate(log);
  return withSecureDelete(log.db, async () => {
    const erased = await writeStep(log, () => eraseEvents(log.db, selector, why));
    // Rewritten also when nothing new matched: an earlier erase's rewrite may have been cut short.
    return { ...erased, leftovers: await scrub(log) };
  });
}

/**
 * What eraseLog would erase, read from the journal alone: the projections are not brought up to date and nothing
 * is written, so the log's files stay byte for byte as they were.
 */
export async function erasePreview(log: OpenLog, selector: EraseSelector): Promise<EraseResult> {
  return { ...guarded(log, () => erasePlan(log.db, selector)), leftovers: [] };
}

/** What pruneLog would delete, read only as erasePreview is; no sizes (the file is not rewritten). */
export async function prunePreview(log: OpenLog, before: Date): Promise<PruneResult> {
  return { ...guarded(log, () => prunePlan(log.db, before)), bytesBefore: null, bytesAfter: null, leftovers: [] };
}

export async function pruneLog(log: OpenLog, before: Date): Promise<PruneResult> {
  await upToDate(log);
  return withSecureDelete(log.db, () => pruneSteps(log, before));
}

async function pruneSteps(log: OpenLog, before: Date): Promise<PruneResult> {
  const bytesBefore = fileBytes(log.path);
  let records = 0;
  let events = 0;
  let from: number | null = null;
  // Where to cut is decided once (what later steps append lies after it); then in steps, each one short
  // transaction, so that other writers get in between.
  const target = guarded(log, () => pruneCut(log.db, before));
  for (let first = target?.from ?? 0; target !== null && first < target.cut; ) {
    const step = await writeStep(log, () => pruneStep(log.db, Math.min(target.cut, first + PRUNE_STEP_RECORDS), before));
    records += step.records;
    events += step.events;
    from = target.cut;
    if (step.records === 0) break;
    first = guarded(log, () => (log.db.prepare("SELECT min(seq) AS seq FROM journal").get() as { seq: number }).seq);
  }
  // The file gives the space back, and the deleted records' bytes go with it.
  const leftovers = records > 0 ? await scrub(log) : [];
  return { records, events, from, bytesBefore, bytesAfter: fileBytes(log.path), leftovers };
}

/** Rewrites the file (holding the write lock while it does), then empties the write-ahead file: scrub.ts. */
async function scrub(log: OpenLog): Promise<Leftover[]> {
  try {
    await writeStep(log, () => rewriteFile(log.db));
  } catch (e) {
    return [{ kind: "file-not-rewritten", file: log.path, why: messageOf(e) }];
  }
  return log.exclusive(() => emptyWal(log.db, log.path));
}

/** The log file and its write-ahead file, in bytes. */
function fileBytes(path: string): number {
  return (statSync(path, { throwIfNoEntry: false })?.size ?? 0) + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}
