import { QhooksError } from "../../errors.js";
import { flagsOf, type CommandSpec } from "../commandSpec.js";
import { cliContext } from "../globals.js";

export const verify: CommandSpec = {
  path: ["verify"],
  description: "check the log's hash chain (ok: N records, or exit 3 naming the first bad record), or an evidence file offline",
  define: (c) =>
    c
      .option("--json", "machine-readable output")
      .option("--evidence <file>", "instead: check an evidence file (qhooks export --evidence) with nothing else: no log, no database")
      .option("--key <pubkey>", "with --evidence: the public key the head must be signed with (a <log>.pub file, or its base64 text)"),
  action: async ({ opts, command }) => {
    if (opts.evidence !== undefined) {
      const { verifyEvidenceCommand, VerifyEvidenceFlagsSchema } = await import("../commands/evidence.js");
      return verifyEvidenceCommand(flagsOf(VerifyEvidenceFlagsSchema, opts));
    }
    if (opts.key !== undefined) throw new QhooksError("usage", "--key goes with --evidence FILE");
    const { verifyCommand, VerifyFlagsSchema } = await import("../commands/summaries.js");
    return verifyCommand(flagsOf(VerifyFlagsSchema, opts), cliContext(command));
  },
};
