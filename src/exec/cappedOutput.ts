/** Default cap for each of a hook's stdout and stderr (contract 8), overridable with QHOOKS_MAX_OUTPUT. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Keeps the first `cap` bytes of a stream and counts the rest, which is read and dropped so that a flooding hook
 * never blocks on a full pipe and never grows memory.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(readonly cap: number) {}

  readonly push = (chunk: Buffer): void => {
    const room = this.cap - this.kept;
    if (room >= chunk.length) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept += room;
    }
    this.dropped += chunk.length - Math.max(room, 0);
  };

  get truncated(): boolean {
    return this.dropped > 0;
  }

  get droppedBytes(): number {
    return this.dropped;
  }

  /** The kept bytes as text; bytes that are not UTF-8 become U+FFFD instead of failing. */
  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString("utf8");
  }
}
