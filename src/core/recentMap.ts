/**
 * A map that keeps its `max` most recently used entries, for what a long-lived process remembers per project or
 * session: reading or setting an entry makes it the newest, and past `max` the least recently used entries go,
 * oldest first, each told to `onEvict`. An entry `keep` holds on to (a stream with an event under way) is passed
 * over: the map may then stay above `max` until that entry can go.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    readonly max: number,
    private readonly options: { readonly keep?: (value: V) => boolean; readonly onEvict?: (value: V, key: K) => void } = {},
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`RecentMap: max must be a whole number of at least 1, not ${max}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, made the newest. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets the entry as the newest, then lets the oldest go while there are more than `max`. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.trim();
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  clear(): void {
    this.entries.clear();
  }

  /** Lets the least recently used entries go while there are more than `max`, passing over those `keep` holds. */
  trim(): void {
    if (this.entries.size <= this.max) return;
    for (const [key, value] of this.entries) {
      if (this.entries.size <= this.max) return;
      if (this.options.keep?.(value)) continue;
      this.entries.delete(key);
      this.options.onEvict?.(value, key);
    }
  }
}

/**
 * How many sessions a long-lived process (a server, a bus) keeps what it remembers per session in memory (once-hooks
 * run, notices said): the most recently active ones. A session forgotten has had no event while this many others
 * had one, and is taken for over; were it to come back, it would be as new (a once-hook could run again).
 */
export const SESSIONS_REMEMBERED = 1000;

/** Per-session facts of a long-lived process: the facts of the SESSIONS_REMEMBERED sessions last seen. */
export function sessionMemory<V>(make: () => V, max = SESSIONS_REMEMBERED): (sessionId: string) => V {
  const sessions = new RecentMap<string, V>(max);
  return (sessionId) => {
    const known = sessions.get(sessionId);
    if (known !== undefined) return known;
    const made = make();
    sessions.set(sessionId, made);
    return made;
  };
}

/**
 * The `max` members last added or asked about: a cache for what a long-lived log connection knows (a snapshot
 * already written), where a member forgotten is found again the slow way, never wrongly.
 */
export class RecentSet<K> {
  private readonly members: RecentMap<K, true>;

  constructor(max: number) {
    this.members = new RecentMap<K, true>(max);
  }

  get size(): number {
    return this.members.size;
  }

  /** Whether it is a member, made the most recent if so. */
  has(key: K): boolean {
    return this.members.get(key) !== undefined;
  }

  add(key: K): this {
    this.members.set(key, true);
    return this;
  }
}
