import { z } from "zod";

/** The hosts qhooks speaks for: whose settings files it reads and whose hook protocol it answers in (hosts/). */
export const DIALECTS = ["qoder", "claude", "gemini", "codex", "cursor", "copilot"] as const;
export const DialectSchema = z.enum(DIALECTS);
export type Dialect = z.infer<typeof DialectSchema>;
