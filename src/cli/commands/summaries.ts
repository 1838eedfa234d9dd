import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import type { SessionRow, Stats, VerifyResult } from "../../schema/logRecord.js";
import { isPostgresUrl, openStore, type Store } from "../../store/openStore.js";
import { timeWindow } from "../filterFlags.js";
import { FormatFlagsSchema, resolveFormat } from "../../display/formats.js";
import { decisionStyle } from "../../display/colour.js";
import { hookRunCountColumns } from "../../display/hookRunColumns.js";
import { originColumns } from "../../display/originColumns.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import { commandTerminal } from "../../display/terminal.js";
import { sessionShortener } from "../../display/sessionPrefix.js";
import { showTime, timeCells } from "../../display/times.js";
import { out } from "../io.js";
import type { CliContext } from "../globals.js";
import { renderStatsByHost, statsByHost } from "./statsByHost.js";
import { settingsOfFlags } from "../settingsFlags.js";

export const WindowFlagsSchema = z
  .object({
    since: z.string().optional(),
    until: z.string().optional(),
    utc: z.boolean().default(false),
    format: FormatFlagsSchema,
    hooks: z.boolean().default(false),
    machine: z.string().optional(),
    user: z.string().optional(),
    writer: z.string().optional(),
    host: z.string().optional(),
    by: z.enum(["host"], { error: 'expected "host"' }).optional(),
  })
  .transform((raw) => ({
    format: raw.format,
    utc: raw.utc,
    window: {
      ...timeWindow(raw),
      ...(raw.machine !== undefined ? { machine: raw.machine } : {}),
      ...(raw.user !== undefined ? { user: raw.user } : {}),
      ...(raw.writer !== undefined ? { writer: raw.writer } : {}),
      ...(raw.host !== undefined ? { host: raw.host } : {}),
    },
    hooksOnly: raw.hooks,
    byHost: raw.by === "host",
  }));
export type WindowFlags = z.infer<typeof WindowFlagsSchema>;

/** `qhooks sessions`: one row per live session. */
export async function sessionsCommand(flags: WindowFlags, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const sessions = await log.sessions(flags.window);
    const terminal = commandTerminal(context);
    const format = resolveFormat(flags.format, terminal);
    if (format === "json") out(JSON.stringify(sessions, null, 2));
    else if (format === "jsonl") for (const s of sessions) out(JSON.stringify(s));
    else if (format === "tsv") out(renderTsv(sessionColumns(flags.utc), sessions));
    else if (sessions.length === 0) out("No sessions in the log.");
    else out(renderTable(sessionColumns(flags.utc, sessions), sessions, terminal));
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/**
 * The listing's columns. A table (`rows` given) names the zone of its times in their headers, when they share one,
 * cuts session ids to the prefix that tells its sessions apart, and shows the origin when its sessions differ in it;
 * tab-separated rows have whole ids and ISO times.
 */
function sessionColumns(utc: boolean, rows?: readonly SessionRow[]): Column<SessionRow>[] {
  const first =
    rows &&
    timeCells(
      rows.map((s) => s.firstTs),
      utc,
    );
  const last =
    rows &&
    timeCells(
      rows.map((s) => s.lastTs),
      utc,
    );
  const index = rows && new Map(rows.map((s, i) => [s, i]));
  const short = rows && sessionShortener(rows.map((s) => s.sessionId));
  const zoned = (name: string, zone: string | null | undefined) => (zone ? `${name} (${zone})` : name);
  return [
    { header: "SESSION", cell: (s) => (short ? short(s.sessionId) : s.sessionId), min: 6, keep: 10 },
    { header: zoned("FIRST", first?.zone), cell: (s) => first?.cells[index!.get(s)!] ?? showTime(s.firstTs, utc).iso, keep: 4 },
    { header: zoned("LAST", last?.zone), cell: (s) => last?.cells[index!.get(s)!] ?? showTime(s.lastTs, utc).iso, keep: 7 },
    { header: "EVENTS", cell: (s) => String(s.events), keep: 9, align: "right" },
    { header: "BLOCKED", cell: (s) => String(s.blocked), style: (s) => (s.blocked > 0 ? "red" : null), keep: 8, align: "right" },
    // Where each session came from, when the sessions listed differ in it.
    ...(rows ? originColumns(rows, (s) => s.origin, 6) : []),
    { header: "PROJECT", cell: (s) => s.projectDir, max: 50, min: 12, keep: 5, cutFrom: "start" },
  ];
}

/** `qhooks stats`: counts by event and decision, and how each hook behaves. */
export async function statsCommand(flags: WindowFlags, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const terminal = commandTerminal(context);
    const format = resolveFormat(flags.format, terminal);
    if (flags.byHost) {
      if (flags.hooksOnly) throw new QhooksError("usage", "--by host counts events; it does not combine with --hooks");
      out(renderStatsByHost(await statsByHost(log, flags.window), format, terminal));
      return EXIT.ok;
    }
    // History kept under hooks' old default names (their whole commands) counts under the names this project's
    // configuration gives them now.
    const stats = await log.stats(flags.window, settingsOfFlags({ settings: [], plugin: [] }, context).hookAliases);
    // One object: --format jsonl is not offered, and would print the same.
    if (format === "json" || format === "jsonl") {
      out(JSON.stringify(flags.hooksOnly ? stats.hooks : stats, null, 2));
      return EXIT.ok;
    }
    if (flags.hooksOnly) {
      const columns = hookColumns(flags.utc);
      out(format === "tsv" ? renderTsv(columns, stats.hooks) : stats.hooks.length ? renderTable(columns, stats.hooks, terminal) : "No hook runs.");
      return EXIT.ok;
    }
    // Two listings: tab-separated, each with its header, a blank line between them.
    if (format === "tsv") {
      out(renderTsv(BY_EVENT, stats.byEvent));
      out("");
      out(renderTsv(BY_HOOK, stats.hooks));
      return EXIT.ok;
    }
    out(`${stats.events} events`);
    if (stats.byEvent.length) out(`\n${renderTable(BY_EVENT, stats.byEvent, terminal)}`);
    if (stats.hooks.length) out(`\n${renderTable(BY_HOOK, stats.hooks, terminal)}`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

const BY_EVENT: Column<Stats["byEvent"][number]>[] = [
  { header: "EVENT", cell: (r) => r.event, keep: 3 },
  { header: "DECISION", cell: (r) => r.decision, style: (r) => decisionStyle(r.decision), keep: 2 },
  { header: "COUNT", cell: (r) => String(r.count), keep: 1, align: "right" },
];

const ms = (v: number | null) => (v === null ? "" : String(Math.round(v * 10) / 10));

const BY_HOOK: Column<Stats["hooks"][number]>[] = [
  { header: "HOOK", cell: (h) => h.name, max: 50, min: 8, keep: 10 },
  // One name at two levels is two hooks (the user's and the project's `check.sh`).
  { header: "LEVEL", cell: (h) => h.level ?? "?", max: 12, min: 5, keep: 5, cutFrom: "start" },
  ...hookRunCountColumns<Stats["hooks"][number]>({ runs: 9, blocks: 8, errors: 7, badOutput: 4, timeouts: 5 }),
  { header: "P50 MS", cell: (h) => ms(h.p50Ms), keep: 3, align: "right" },
  { header: "P95 MS", cell: (h) => ms(h.p95Ms), keep: 6, align: "right" },
  { header: "P99 MS", cell: (h) => ms(h.p99Ms), keep: 2, align: "right" },
];

export const VerifyFlagsSchema = z.object({ json: z.boolean().default(false) });

/** `qhooks verify`: the hash chain, record by record. */
export async function verifyCommand(flags: z.infer<typeof VerifyFlagsSchema>, context: CliContext): Promise<number> {
  const log = openStore(context.dbPath, { mustExist: true });
  try {
    const chain = await log.verify();
    const result = chain.ok ? await checkSignedHeads(log, context.dbPath, chain) : chain;
    if (flags.json) out(JSON.stringify(result));
    if (!result.ok)
      throw new QhooksError(
        "integrity",
        `log integrity failure at record ${result.firstBad}: ${result.problem} (${result.records} records before it are intact)`,
      );
    if (!flags.json) {
      const notes = [
        result.from !== undefined && result.from > 1 ? `from record ${result.from}: older records were pruned` : null,
        result.erased ? `${result.erased} erased` : null,
        result.signedHeads ? `${result.signedHeads} signed head${result.signedHeads === 1 ? " still matches" : "s still match"}` : null,
        result.unsignedChains ? `${result.unsignedChains} chain${result.unsignedChains === 1 ? "" : "s"} with no signed head: links only` : null,
      ].filter((n) => n !== null);
      out(`ok: ${result.records} records${notes.length ? ` (${notes.join("; ")})` : ""}`);
      // A lost key is not a plain ok: each break is its own line, on stdout with the result.
      // So are records no signed head covers: their links hold, which someone with the database can recompute.
      for (const u of result.uncovered ?? [])
        out(`${u.from === u.to ? `record ${u.from}` : `records ${u.from}-${u.to}`} of writer ${u.chain}: links only, no signed head covers them`);
      for (const b of result.keyBreaks ?? [])
        out(
          `key break: ${b.chain ? `chain ${b.chain}: ` : ""}from record ${b.seq} on, the chain is vouched for by key ${b.key}, introduced without the old key's signature (key reported lost)`,
        );
    }
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

/**
 * The heads the log's key signed (`<log>.heads`, one per evidence export) against the chain as it is now: a head
 * whose record is gone means records were cut off the end after it was signed; one whose record has another hash, a
 * chain rewritten since. Heads of another log id (a log replaced since) and of pruned records are not checked.
 */
async function checkSignedHeads(log: Store, location: string, chain: Extract<VerifyResult, { ok: true }>): Promise<VerifyResult> {
  if (isPostgresUrl(location) || !log.recordHashes) return chain;
  const { readSignedHeads } = await import("../../store/signedHeads.js");
  const { heads, problem } = readSignedHeads(location);
  const broken = (firstBad: number, why: string): VerifyResult => ({ ok: false, records: chain.records, firstBad, problem: why });
  if (problem !== null) return broken(chain.records + 1, problem);
  const { keyMaySign, keyPeriods } = await import("../../store/keyChange.js");
  const { keyFingerprint } = await import("../../store/logKey.js");
  const { logId, hashes } = await log.recordHashes(heads.map((h) => h.seq));
  const changes = await localKeyRecords(location);
  const ours = heads.filter((h) => h.log === logId);
  // The first key: the one that signed the first head kept, or (no head yet) the one the first key record retires.
  const keys = keyPeriods(logId, ours[0]?.publicKey ?? null, changes);
  if ("problem" in keys) return broken(keys.seq, keys.problem);
  const breaks = keys.breaks.length > 0 ? { keyBreaks: keys.breaks.map((b) => ({ seq: b.seq, key: keyFingerprint(b.key) })) } : {};
  if (heads.length === 0) return { ...chain, ...breaks };
  let checked = 0;
  for (const head of heads) {
    if (head.log !== logId || head.seq < (chain.from ?? 1)) continue;
    if (!keyMaySign(keys, head.publicKey, head.seq))
      return broken(
        head.seq,
        `the head signed at ${head.time} is signed by key ${keyFingerprint(head.publicKey)}, which no key record vouches for at record ${head.seq}: the log's key changed without a rotation record (qhooks key rotate, or key reset --lost if the old key is gone)`,
      );
    const hash = hashes.get(head.seq);
    if (hash === undefined) return broken(head.seq, `the head signed at ${head.time} is gone: records cut off the end of the log after it was signed`);
    if (hash !== head.hash) return broken(head.seq, `it is not the record whose head was signed at ${head.time}: the log was rewritten after it was signed`);
    checked++;
  }
  return { ...chain, signedHeads: checked, ...breaks };
}

/** The key records of a SQLite log, read on their own connection (the store does not list them). */
async function localKeyRecords(location: string): Promise<{ seq: number; body: string }[]> {
  const { openDatabase } = await import("../../store/sqlite/connection.js");
  const { keyRecords } = await import("../../store/sqlite/maintenance.js");
  const db = openDatabase(location, true);
  try {
    return keyRecords(db);
  } finally {
    db.close();
  }
}

/** `stats --hooks`: the per-hook table with the slowest run and when each hook last ran. */
function hookColumns(utc: boolean): Column<Stats["hooks"][number]>[] {
  return [
    ...BY_HOOK,
    { header: "MAX MS", cell: (h) => ms(h.maxMs), keep: 2, align: "right" },
    {
      header: "LAST RUN",
      cell: (h) => (h.lastTs === null ? "" : showTime(h.lastTs, utc).text),
      tsv: (h) => (h.lastTs === null ? "" : showTime(h.lastTs, utc).iso),
      keep: 1,
    },
  ];
}
