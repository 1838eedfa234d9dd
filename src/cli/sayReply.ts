import { EXIT } from "../errors.js";
import type { RunReply } from "../schema/runReply.js";
import { delivered, err, out } from "./io.js";

/**
 * A judged run's reply, said as `qhooks run` says it, in its own process or forwarded (forwardClient.ts): the exit
 * status it resolves to is the answer. Free of zod, as the forwarding client must be.
 */
export async function sayReply(reply: RunReply): Promise<number> {
  if (reply.stdout !== null) {
    if (reply.blockIfUndelivered === null) out(reply.stdout);
    else if (!(await delivered(reply.stdout))) {
      err(reply.blockIfUndelivered);
      return EXIT.blocked;
    }
  }
  if (reply.stderr !== null) err(reply.stderr);
  return reply.exitCode;
}
