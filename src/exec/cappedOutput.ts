/** Default cap for each of a hook's stdout and stderr, overridable with QHOOKS_MAX_OUTPUT. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Default cap on what all the hooks of one event keep in all (both streams of every hook), overridable with
 * QHOOKS_MAX_EVENT_OUTPUT. Everything kept goes into the outcome, the log and the CLI's JSON, several times over and
 * escaped: a hundred hooks at the per-hook cap made strings longer than V8 allows and lost every decision.
 */
export const DEFAULT_MAX_EVENT_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * The head of each stream that its hook keeps whatever its siblings print (within the per-hook cap): a decision
 * printed there is read even when the event's total is used up. Half the total is set aside for these heads, shared
 * out among the streams of the event: 64 KiB each up to 16 hooks (with the default total), less beyond, never below
 * the floor.
 */
export const MAX_RESERVED_HEAD_BYTES = 64 * 1024;
export const MIN_RESERVED_HEAD_BYTES = 4 * 1024;

/**
 * What the hooks of one event may keep in all. Each stream's reserved head is always kept; bytes past it are kept
 * while what the heads leave of the total lasts, first come first served. So an event keeps at most its total, or
 * the floor of every stream when it has more streams than the total can give the floor to.
 */
export class OutputBudget {
  /** Bytes each stream keeps whatever the total says. */
  readonly reserve: number;
  private left: number;
  private readonly cut: CappedOutput[] = [];

  constructor(
    readonly total: number,
    streams: number,
  ) {
    const share = Math.floor(total / 2 / Math.max(streams, 1));
    this.reserve = Math.min(MAX_RESERVED_HEAD_BYTES, Math.max(MIN_RESERVED_HEAD_BYTES, share));
    this.left = Math.max(0, total - this.reserve * streams);
  }

  /** How many of `want` bytes a stream that already keeps `kept` bytes may keep now. */
  grant(kept: number, want: number): number {
    const free = Math.max(0, Math.min(want, this.reserve - kept));
    const extra = Math.min(want - free, this.left);
    this.left -= extra;
    return free + extra;
  }

  noteCut(output: CappedOutput): void {
    this.cut.push(output);
  }

  /** The streams this total cut, and the bytes they dropped: for the event's one warning. */
  get cutStreams(): readonly CappedOutput[] {
    return this.cut;
  }
}

/**
 * Keeps the first `cap` bytes of a stream (fewer once the event's budget, if any, is used up) and counts the rest,
 * which is read and dropped so that a flooding hook never blocks on a full pipe and never grows memory. Once a
 * byte has been dropped, every later byte is dropped too: what is kept is always a head, never a text with a hole.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  /** Which limit cut this stream: its own cap, or the event's total. */
  private cutBy: "cap" | "event" | null = null;

  constructor(
    readonly cap: number,
    private readonly budget: OutputBudget | null = null,
  ) {}

  readonly push = (chunk: Buffer): void => {
    if (this.dropped > 0) {
      this.dropped += chunk.length;
      return;
    }
    const room = Math.min(chunk.length, this.cap - this.kept);
    const keep = this.budget !== null && room > 0 ? this.budget.grant(this.kept, room) : Math.max(room, 0);
    if (keep > 0) {
      this.chunks.push(keep === chunk.length ? chunk : chunk.subarray(0, keep));
      this.kept += keep;
    }
    if (keep === chunk.length) return;
    this.dropped += chunk.length - keep;
    this.cutBy = keep < room ? "event" : "cap";
    if (this.cutBy === "event") this.budget?.noteCut(this);
  };

  get truncated(): boolean {
    return this.dropped > 0;
  }

  get droppedBytes(): number {
    return this.dropped;
  }

  /** True when this stream's own cap (QHOOKS_MAX_OUTPUT) cut it, false when the event's total did or nothing did. */
  get cutByCap(): boolean {
    return this.cutBy === "cap";
  }

  /** The kept bytes as text; bytes that are not UTF-8 become U+FFFD instead of failing. */
  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString("utf8");
  }
}
