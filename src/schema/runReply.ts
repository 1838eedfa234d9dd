import { z } from "zod";

/**
 * What is left to say once `qhooks run` has judged an event, whoever judged it (its own process, or `qhooks serve`
 * for a forwarded run): `stdout` (null: nothing), then `stderr` (null: nothing) and the exit status.
 * `blockIfUndelivered`: the reason to say instead, with exit 2, when stdout cannot be delivered (a block carried in a
 * JSON reply that no one reads would let the tool call go ahead).
 */
export const RunReplySchema = z.object({
  stdout: z.string().nullable(),
  blockIfUndelivered: z.string().nullable(),
  stderr: z.string().nullable(),
  exitCode: z.number().int(),
});
export type RunReply = z.infer<typeof RunReplySchema>;
