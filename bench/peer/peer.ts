/** Another hook engine run through cases 2-4 next to qhooks (`--peer <name>`). Each method returns one sample. */
export interface Peer {
  readonly name: string;
  /** Milliseconds for one event with one `sh -c true` hook. */
  dispatchOneHook(payload: string): Promise<number>;
  /** Milliseconds for one event with ten such hooks. */
  dispatchTenHooks(payload: string): Promise<number>;
  /** Events/s for `count` events that match no hook. */
  dispatchNoMatch(payload: string, count: number): Promise<number>;
  /** What the table cannot show (a configuration the peer needed, a cost measured aside), one line. */
  notes?(payload: string): Promise<string>;
  close(): Promise<void>;
}
