import { QhooksError } from "../errors.js";

/** Where the forward client leaves the stdin it read for this process's `readStdin` (a symbol shared by both bundles). */
export const STDIN_TAKEN = Symbol.for("qhooks.forward.stdin");

/**
 * Reads stdin as UTF-8, keeping at most `limit + 1` bytes: enough for the payload check to see that it is too large.
 * Reading stops there, whether or not the writer ever ends (`cat /dev/zero | qhooks run ...`, stdin redirected from
 * a device): the payload is refused at once, with its documented error, instead of being read forever.
 */
export async function readStdin(limit: number, hint: string): Promise<string> {
  // Read already by the forward client, which then left the run to this process (forwardClient.ts).
  const taken = (globalThis as Record<symbol, unknown>)[STDIN_TAKEN];
  if (taken instanceof Buffer) return taken.subarray(0, limit + 1).toString("utf8");
  if (process.stdin.isTTY) throw new QhooksError("usage", `${hint} reads the event payload on stdin; pipe it in`);
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    const piece = chunk.subarray(0, limit + 1 - kept);
    chunks.push(piece);
    kept += piece.length;
    // Leaving the loop destroys stdin: the writer gets EPIPE (or stays blocked on its full pipe), never an answer.
    if (kept > limit) break;
  }
  return Buffer.concat(chunks, kept).toString("utf8");
}

/** One line (or block) on stdout; `out("")` is a blank line. */
export const out = (text: string): void => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
export const err = (line: string): void => void process.stderr.write(`${line}\n`);

/** `out()`, resolving to whether the text reached stdout's reader (false: the pipe is closed, the disk is full...). */
export function delivered(text: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (process.stdout.destroyed || !process.stdout.writable) return resolve(false);
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`, (e) => resolve(!e));
  });
}
/** Settings and runtime warnings: one line each, prefixed as docs/settings.md describes. */
export const warn = (line: string): void => err(`qhooks: warning: ${line}`);
