/** A hook as its runs are logged, and as the configuration names it now: its name, level and command. */
export interface NamedHook {
  readonly name: string;
  readonly level: string;
  readonly command: string | null;
}

/**
 * Each name the log holds that no configured hook has now, to the name of the hook its runs belong to: the old default
 * names the settings know (`aliases`: the whole command, now the script's name), then the names a hook was logged
 * under before it was renamed (its `name` changed), found by the same level and command. What it cannot place (a
 * hook since removed, a command two hooks of one level share under different names) keeps its own name. Pure.
 */
export function loggedHookNames(
  configured: readonly NamedHook[],
  logged: Iterable<NamedHook>,
  aliases: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const current = new Set(configured.map((h) => h.name));
  const names = new Map([...aliases].filter(([old]) => !current.has(old)));
  // Level and command to the one name configured for them; null where two names share them (which one ran is unknown).
  const owner = new Map<string, string | null>();
  for (const h of configured) {
    if (h.command === null) continue;
    const key = `${h.level}\0${h.command}`;
    const had = owner.get(key);
    owner.set(key, had === undefined || had === h.name ? h.name : null);
  }
  for (const run of logged) {
    if (run.command === null || current.has(run.name) || names.has(run.name)) continue;
    const name = owner.get(`${run.level}\0${run.command}`);
    if (name !== undefined && name !== null) names.set(run.name, name);
  }
  return names;
}
