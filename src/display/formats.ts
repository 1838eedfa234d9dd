import { z } from "zod";
import type { Terminal } from "./terminal.js";

/** How a listing is printed: a table for people, tab-separated rows for pipes, JSON for programs. */
export const OutputFormatSchema = z.enum(["table", "tsv", "json", "jsonl"]);
export type OutputFormat = z.infer<typeof OutputFormatSchema>;

/**
 * `--format`, with `--json` and `--jsonl` kept as its short forms. Giving two that disagree is a usage error, so
 * that a script never gets another format than the one it asked for.
 */
export const FormatFlagsSchema = z
  .object({
    format: OutputFormatSchema.optional(),
    json: z.boolean().default(false),
    jsonl: z.boolean().default(false),
  })
  .check((ctx) => {
    const asked = [ctx.value.format, ctx.value.json ? "json" : undefined, ctx.value.jsonl ? "jsonl" : undefined].filter((f) => f !== undefined);
    if (new Set(asked).size > 1) {
      const flags = [ctx.value.format && `--format ${ctx.value.format}`, ctx.value.json && "--json", ctx.value.jsonl && "--jsonl"].filter(Boolean);
      ctx.issues.push({ code: "custom", input: ctx.value, message: `${flags.join(" and ")} ask for different formats; give one` });
    }
  })
  .transform((f) => f.format ?? (f.json ? "json" : f.jsonl ? "jsonl" : undefined));

/** The format asked for, else a table on a terminal and tab-separated rows anywhere else. */
export const resolveFormat = (asked: OutputFormat | undefined, terminal: Terminal): OutputFormat => asked ?? (terminal.isTTY ? "table" : "tsv");
