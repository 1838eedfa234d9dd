import { z } from "zod";
import { QhooksError } from "../../errors.js";
import type { TrustEntry, TrustReport } from "../../schema/trust.js";
import { reviewHooks, revokedBy } from "../../trust/reviewHooks.js";
import { createTrustPolicy } from "../../trust/trustPolicy.js";
import { ProjectTrust } from "../../trust/trustScope.js";
import { displayStorePath, readTrustStore, scopeKey, trustStorePath, withEntries, writeTrustStore } from "../../trust/trustStore.js";
import { resolveFormat } from "../../display/formats.js";
import { renderTable, renderTsv, type Column } from "../../display/table.js";
import { stdoutTerminal } from "../../display/terminal.js";
import { escapeForTerminal, escapeToAscii } from "../../display/terminalText.js";
import { showTime } from "../../display/times.js";
import { settingsOfFlags } from "../settingsFlags.js";
import { out } from "../io.js";
import { requireProjectDir, type CliContext } from "../globals.js";

export const TrustFlagsSchema = z.object({
  settings: z.array(z.string()).default([]),
  plugin: z.array(z.string()).default([]),
  list: z.boolean().default(false),
  /** true: this project's and its plugins' entries; a string: the entries whose digest starts with it. */
  revoke: z
    .union([
      z.literal(true),
      z.string().regex(/^[0-9a-f]{4,64}$/, { error: "--revoke takes the first 4 or more hex digits of a digest (qhooks trust --list)" }),
    ])
    .optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});
export type TrustFlags = z.infer<typeof TrustFlagsSchema>;

/** `qhooks trust`: show the untrusted hooks of the project, its local settings and plugins, and trust them. */
export function trustCommand(flags: TrustFlags, context: CliContext): number {
  const storePath = trustStorePath(context.homeDir);
  const storeName = displayStorePath(storePath, context.homeDir);
  const read = readTrustStore(storePath);
  const terminal = stdoutTerminal(context.env);
  // Commands, paths and places come from files anyone may have committed to a repository: escaped.
  const shown = terminal.utf8 ? escapeForTerminal : escapeToAscii;
  // Never overwrite what cannot be read: it may be someone's tampering, and it is the user's to look at.
  if (read.state === "refused") throw new QhooksError("io", `the trust store ${storeName} ${read.why}; fix or remove it, then run qhooks trust again`);

  if (flags.list) {
    if (flags.json) out(JSON.stringify({ store: storePath, trusted: read.store.trusted }, null, 2));
    else if (resolveFormat(undefined, terminal) === "tsv") out(renderTsv(ENTRY_COLUMNS, read.store.trusted));
    else if (read.store.trusted.length === 0) out(`No trusted hooks in ${storeName}.`);
    else out(renderTable(ENTRY_COLUMNS, read.store.trusted, terminal));
    return 0;
  }

  const projectDir = requireProjectDir(context);
  const snapshot = settingsOfFlags(flags, context, projectDir);
  const project = new ProjectTrust(projectDir, context.homeDir);

  if (flags.revoke !== undefined) {
    const scopes = new Set([scopeKey(project.scope), ...snapshot.hooks.flatMap((h) => (h.plugin ? [scopeKey({ kind: "plugin", path: h.plugin.root })] : []))]);
    const revoked = revokedBy(read.store, flags.revoke === true ? { scopes } : { prefix: flags.revoke });
    if (flags.revoke !== true && revoked.length === 0)
      throw new QhooksError("usage", `no trusted hook has a digest starting with ${flags.revoke} (qhooks trust --list)`);
    if (revoked.length && !flags.dryRun) writeTrustStore(storePath, { version: 1, trusted: read.store.trusted.filter((e) => !revoked.includes(e)) });
    if (flags.json) out(JSON.stringify({ store: storePath, revoked, recorded: !flags.dryRun }, null, 2));
    else if (revoked.length === 0) out(`Nothing to revoke: ${storeName} trusts no hook of ${shown(projectDir)} or its plugins.`);
    else {
      out(renderTable(ENTRY_COLUMNS, revoked, terminal));
      out("");
      out(
        `${flags.dryRun ? "Would revoke" : "Revoked"} ${count(revoked.length, "trusted hook")}: ${flags.dryRun ? "they would" : "they"} no longer run where trust is required.`,
      );
    }
    return 0;
  }

  const required =
    createTrustPolicy({ homeDir: context.homeDir, projectDir, env: context.env, dialect: context.dialect, trustCommand: "" }).check(snapshot) !== null;
  const review = reviewHooks(snapshot, project, read.index);
  const recorded = !flags.dryRun && review.entries.length > 0;
  if (recorded) writeTrustStore(storePath, withEntries(read.store, review.entries));
  const cannot = review.untrusted.filter((c) => c.problem !== null);

  if (flags.json) {
    const report: TrustReport = { projectDir, store: storePath, required, alreadyTrusted: review.alreadyTrusted, untrusted: [...review.untrusted], recorded };
    out(JSON.stringify(report, null, 2));
  } else {
    if (review.untrusted.length === 0) {
      out(
        review.alreadyTrusted === 0
          ? `No hooks from ${shown(projectDir)}, its local settings or plugins.`
          : `All ${count(review.alreadyTrusted, "hook")} from ${shown(projectDir)}, its local settings and plugins are trusted.`,
      );
    } else {
      out(`Untrusted hooks of ${shown(projectDir)}, its local settings and plugins (${review.untrusted.length}):`);
      for (const c of review.untrusted) {
        out(`  ${c.event}  ${shown(c.plugin === null ? c.level : `plugin ${c.plugin}`)}  ${shown(c.where)}`);
        // The whole command, every character visible: this is what the user is asked to review.
        out(`      runs:  ${shown(c.command)}`);
        if (c.shell !== null) out(`      shell: ${shown(c.shell)}`);
        for (const f of c.files) out(`      pins:  ${shown(f)}`);
        if (c.problem !== null) out(`      cannot be trusted: ${shown(c.problem)}`);
      }
      out("");
      const trustedNow = review.untrusted.length - cannot.length;
      if (trustedNow > 0) {
        out(
          flags.dryRun
            ? `Would trust ${count(trustedNow, "hook")} (--dry-run: nothing recorded).`
            : `Trusted ${count(trustedNow, "hook")} in ${storeName}: each runs while its command and the files it runs stay as they are now.`,
        );
      }
    }
    if (!required) out(`Trust is not required now: turn it on with "qhooks": {"requireTrust": true} in your user-level settings, or QHOOKS_REQUIRE_TRUST=1.`);
  }
  if (cannot.length)
    throw new QhooksError(
      "io",
      `${count(cannot.length, "hook")} cannot be trusted (${cannot[0]!.problem}${cannot.length > 1 ? ", ..." : ""}) and will not run where trust is required`,
    );
  return 0;
}

/** The store's entries as a listing: a table on a terminal, tab-separated rows (whole digests, ISO times) elsewhere. */
const ENTRY_COLUMNS: Column<TrustEntry>[] = [
  { header: "DIGEST", cell: (e) => e.digest.slice(0, 12), tsv: (e) => e.digest, keep: 10 },
  { header: "SCOPE", cell: (e) => `${e.scope.kind} ${e.scope.path}`, max: 50, min: 12, keep: 8, cutFrom: "start" },
  { header: "DECLARED AT", cell: (e) => e.where, max: 60, min: 12, keep: 5, cutFrom: "start" },
  { header: "COMMAND", cell: (e) => e.command, max: 60, min: 12, keep: 9 },
  {
    header: "TRUSTED",
    cell: (e) => {
      const t = showTime(e.trustedAt, false);
      return `${t.text} ${t.zone}`;
    },
    tsv: (e) => e.trustedAt,
    keep: 4,
  },
];

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
