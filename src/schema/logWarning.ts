import { z } from "zod";

/** Something about the log that its users should hear, though the append itself went through. */
export const LogWarningSchema = z.object({
  /**
   * reopened: the file at the log's path was removed or replaced while it was open, and the log was opened again
   * there; projector-stopped: the thread that keeps the audit projections up to date died (readers catch them up);
   * fallback: the central log could not take the event in time, and it went to a local fallback file instead;
   * heads-unsigned: the log's key could not be used to sign its head as the log is written.
   */
  kind: z.enum(["reopened", "projector-stopped", "fallback", "heads-unsigned"]),
  /** One line. */
  message: z.string(),
});
export type LogWarning = Readonly<z.infer<typeof LogWarningSchema>>;
