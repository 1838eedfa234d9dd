/** Consecutive blocked Stop outcomes a session may have before the next block is overruled. */
export const DEFAULT_STOP_BLOCK_CAP = 8;

/**
 * One settings file's `qhooks.stopBlockCap`, as the snapshot keeps it. `own` is a file of the user's own: the
 * user-level file, or a `--settings` file named on the command line. Any other file (the project's, its local
 * settings, a plugin's) is someone else's.
 */
export interface StopBlockCapSetting {
  readonly level: string;
  /** How messages name the file. */
  readonly display: string;
  /** The plugin folder of a plugin's hooks file; null otherwise. */
  readonly pluginRoot: string | null;
  readonly own: boolean;
  readonly cap: number;
}

/**
 * How much a cap lets a Stop hook insist: 0 turns the guard off (a Stop hook is never overruled), the most of all.
 * The cap protects the user's own Stop hooks from being overruled; a file that is not the user's may make them
 * insist longer, never shorter.
 */
const strength = (cap: number): number => (cap === 0 ? Number.POSITIVE_INFINITY : cap);

/**
 * The caps that apply, from every file that sets one (lowest priority first): the user's own files as before (the
 * highest-priority one wins), and another file's only when it raises the cap the user's files give (else the
 * default). A cap that would lower it is left out, with one warning: a project must not overrule the user's Stop
 * guard sooner than the user asked.
 */
export function keptStopBlockCaps(settings: readonly StopBlockCapSetting[]): { kept: StopBlockCapSetting[]; warnings: string[] } {
  let own: number | null = null;
  for (const s of settings) if (s.own) own = s.cap;
  const base = own ?? DEFAULT_STOP_BLOCK_CAP;
  const kept: StopBlockCapSetting[] = [];
  const warnings: string[] = [];
  for (const s of settings) {
    if (s.own || strength(s.cap) > strength(base)) kept.push(s);
    else if (s.cap !== base) {
      const whose = own === null ? `the default cap (${base})` : `the cap of your own settings (${base})`;
      warnings.push(`${s.display}: qhooks.stopBlockCap: ${s.cap} is lower than ${whose}; only your own settings can lower it; ignored`);
    }
  }
  return { kept, warnings };
}

/**
 * The cap these kept settings give: the highest-priority own file's, raised by any other file's; null when none
 * sets one (then QHOOKS_STOP_BLOCK_CAP's absence means the default).
 */
export function capOf(kept: readonly StopBlockCapSetting[]): number | null {
  let cap: number | null = null;
  for (const s of kept) if (s.own) cap = s.cap;
  for (const s of kept) if (!s.own && (cap === null || strength(s.cap) > strength(cap))) cap = s.cap;
  return cap;
}
