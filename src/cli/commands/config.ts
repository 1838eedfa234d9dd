import { z } from "zod";
import { EXIT, QhooksError } from "../../errors.js";
import { DIALECTS } from "../../hosts/hostDialect.js";
import { HOSTS, hostChoicesText } from "../../hosts/hosts.js";
import { writeDialect } from "../../install/rememberDialect.js";
import { readConfig, rememberedDialect } from "../../settings/dialectConfig.js";
import type { CliContext } from "../globals.js";
import { out } from "../io.js";

export const ConfigFlagsSchema = z.object({
  value: z.string().optional(),
  unset: z.boolean().default(false),
});

/** `qhooks config dialect [HOST] [--unset]`: shows, remembers or forgets the dialect of the commands a person types. */
export function configDialectCommand(flags: z.infer<typeof ConfigFlagsSchema>, context: CliContext): number {
  if (flags.unset) {
    if (flags.value !== undefined) throw new QhooksError("usage", "config dialect --unset takes no host");
    const before = rememberedDialect(readConfig(context.homeDir));
    if (before === null) {
      out("No dialect is remembered; nothing to do");
      return EXIT.ok;
    }
    const path = writeDialect(context.homeDir, null);
    out(`Forgot the dialect ${before.dialect} (${path})`);
    return EXIT.ok;
  }
  if (flags.value !== undefined) {
    const host = flags.value;
    if (!(DIALECTS as readonly string[]).includes(host)) throw new QhooksError("usage", `unknown host "${host}": expected ${hostChoicesText()}`);
    const dialect = host as (typeof DIALECTS)[number];
    const path = writeDialect(context.homeDir, { dialect, setBy: "config" });
    out(`Remembered the dialect ${dialect} (${HOSTS[dialect].name}) in ${path}`);
    const env = context.env.QHOOKS_DIALECT?.trim();
    if (env && env !== dialect) out(`$QHOOKS_DIALECT=${env} is set here, and comes first`);
    return EXIT.ok;
  }
  out(`${context.dialect} (${HOSTS[context.dialect].name}): ${sourceText(context)}`);
  return EXIT.ok;
}

function sourceText(context: CliContext): string {
  const { how, from } = context.dialectSource;
  const remembered = how === "flag" || how === "environment" ? rememberedDialect(readConfig(context.homeDir)) : null;
  const also = remembered === null ? "" : `; remembered: ${remembered.dialect} in ${remembered.path}`;
  switch (how) {
    case "flag":
      return `--dialect${also}`;
    case "environment":
      return `$QHOOKS_DIALECT${also}`;
    case "remembered": {
      const by = rememberedDialect(readConfig(context.homeDir))?.setBy === "install" ? `, by qhooks install ${context.dialect}` : "";
      return `remembered in ${from}${by}`;
    }
    case "detected":
      return `detected: ${from}`;
    case "default":
      return "the default: none is remembered, and no single host's settings files exist here";
  }
}
