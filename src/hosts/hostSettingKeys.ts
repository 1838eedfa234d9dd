/** No keys besides qhooks' own: Qoder CN CLI and Claude Code write nothing in their hooks that qhooks does not read. */
export const NO_HOOK_SETTING_KEYS = { section: [], group: [], handler: [] } as const;

/**
 * Claude Code's switch, which Qoder CN CLI's files share: `disableAllHooks`. Only a boolean means anything; anything
 * else is the host's to complain about.
 */
export const disableAllHooksKey = (document: Readonly<Record<string, unknown>>): boolean | null =>
  typeof document.disableAllHooks === "boolean" ? document.disableAllHooks : null;
