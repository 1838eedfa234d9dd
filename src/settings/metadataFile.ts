import { readRegularFile } from "./readSettingsSource.js";

/** Largest manifest or installed-plugins file read; both are a few kilobytes. */
const MAX_METADATA_BYTES = 4 * 1024 * 1024;

/** A plugin manifest or Claude Code's installed-plugins file: only a regular file of sane size (a FIFO would block). */
export function readText(path: string): string | { error: string } {
  const read = readRegularFile(path, MAX_METADATA_BYTES);
  if (read.state === "read") return read.bytes.toString("utf8");
  if (read.state === "missing") return { error: "missing" };
  if (read.state === "not-regular") return { error: "not a regular file" };
  if (read.state === "too-large") return { error: `larger than ${MAX_METADATA_BYTES} bytes` };
  return { error: read.code };
}
