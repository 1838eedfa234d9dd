/** Time a hook's process group gets between SIGTERM and SIGKILL, here and in the watchdog. */
export const KILL_GRACE_MS = 500;
export const KILL_GRACE_SECONDS_TEXT = (KILL_GRACE_MS / 1000).toFixed(1);
