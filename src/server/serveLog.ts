import { appendFileSync, renameSync, statSync } from "node:fs";

/** serve.log's size before it is rotated: the file becomes `<file>.1` (the one old file kept), and a new one starts. */
export const SERVE_LOG_MAX_BYTES = 1024 * 1024;

/** Moves the file to `<file>.1` (replacing the older one) when adding `incoming` bytes would pass `maxBytes`. */
export function rotateIfFull(path: string, incoming = 0, maxBytes = SERVE_LOG_MAX_BYTES): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // no file yet
  }
  if (size > 0 && size + incoming > maxBytes) renameSync(path, `${path}.1`);
}

/**
 * The server's lines into its log file (`--log-file`, which `--ensure` sets to serve.log): each appended by path, so
 * a rotated file is never written again, and the file rotated first when the line would take it past 1 MiB. A line
 * that cannot be written goes to stderr instead: the server never stops for its own log.
 */
export function serveLogWriter(path: string, fallback: (line: string) => void): (line: string) => void {
  return (line) => {
    const text = `${new Date().toISOString()} ${line}\n`;
    try {
      rotateIfFull(path, Buffer.byteLength(text));
      appendFileSync(path, text, { mode: 0o600 });
    } catch {
      fallback(line);
    }
  };
}
