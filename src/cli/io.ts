import { QhooksError } from "../errors.js";

/**
 * Reads stdin as UTF-8, keeping at most `limit + 1` bytes: enough for the payload check to see that it is too
 * large. The rest is drained, so that the writer is never blocked on a full pipe, and dropped.
 */
export async function readStdin(limit: number, hint: string): Promise<string> {
  if (process.stdin.isTTY) throw new QhooksError("usage", `${hint} reads the event payload on stdin; pipe it in`);
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    if (kept > limit) continue;
    const piece = chunk.subarray(0, limit + 1 - kept);
    chunks.push(piece);
    kept += piece.length;
  }
  return Buffer.concat(chunks, kept).toString("utf8");
}

/** One line (or block) on stdout; `out("")` is a blank line. */
export const out = (text: string): void => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
export const err = (line: string): void => void process.stderr.write(`${line}\n`);
/** Settings and runtime warnings: one line each, prefixed as contract 1.2 says. */
export const warn = (line: string): void => err(`qhooks: warning: ${line}`);
