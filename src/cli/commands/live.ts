import { QhooksError } from "../../errors.js";
import { liveServer } from "../../server/control.js";
import { mintTicket } from "../../server/liveTicket.js";
import { serverPaths } from "../../server/paths.js";
import { readOrCreateToken } from "../../server/token.js";
import type { CliContext } from "../globals.js";
import { err, out } from "../io.js";

/**
 * `qhooks live`: the URL of the running server's live view, with a one-time ticket good for two minutes (never the
 * secret). The server is verified first (it must prove it holds the secret), so no squatter's page is named.
 */
export async function liveCommand(context: CliContext): Promise<number> {
  const server = await liveServer(context.homeDir);
  if (server === null) throw new QhooksError("usage", "no qhooks server runs; start one with qhooks serve --ensure, then run qhooks live again");
  const ticket = mintTicket(readOrCreateToken(serverPaths(context.homeDir).token));
  out(`${server.url}/live?ticket=${ticket}`);
  err("qhooks: open this URL in your browser within 2 minutes; it works once (run qhooks live again for another)");
  return 0;
}
