/**
 * Whether a hook command calls qhooks itself on the host's events: `qhooks record ...`, or `qhooks run ... --format
 * hook` without `--settings` (which reads the host's own levels). Such an entry in a file qhooks reads as one of the
 * host's levels is qhooks' own way in (what `qhooks install` writes, or the recorder a user merged by hand): running
 * it from qhooks would run qhooks inside itself, so the settings reader leaves it out, and `hooks add` refuses to
 * write it there. Recognised by the CLI's name (`qhooks`, or the path of its `qhooks.cjs`) followed by the
 * command word, quoted or not.
 */
const CALL = /(?:^|[\s/'"])qhooks(?:\.c?js)?['"]?\s+(run|record)(?=\s|$)(.*)$/s;

export function isQhooksSelfCall(command: string): boolean {
  const call = CALL.exec(command);
  if (call === null) return false;
  if (call[1] === "record") return true;
  const rest = call[2] ?? "";
  return /--format(?:\s+|=)['"]?hook\b/.test(rest) && !/--settings\b/.test(rest);
}
