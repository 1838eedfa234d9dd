/**
 * Whether a hook command calls `qhooks run ... --format hook` without `--settings`: qhooks judging the host's event
 * with the host's own levels (what `qhooks install --scope managed` writes). Such an entry in a file qhooks reads as
 * one of the host's levels would have qhooks run itself, so the settings reader leaves it out, `hooks add` refuses to
 * write it there, and install refuses to install over one. Recognised by the CLI's name (`qhooks`, or the path of its
 * `qhooks.cjs`) followed by `run`, quoted or not.
 */
const RUN = /(?:^|[\s/'"])qhooks(?:\.c?js)?['"]?\s+run(?=\s)(.*)$/s;

export function isQhooksSelfCall(command: string): boolean {
  const rest = RUN.exec(command)?.[1];
  return rest !== undefined && /--format(?:\s+|=)['"]?hook\b/.test(rest) && !/--settings\b/.test(rest);
}

const RECORD = /(?:^|[\s/'"])qhooks(?:\.c?js)?['"]?\s+record(?=\s|$)/;

/**
 * Whether a hook command is a recorder (`qhooks record ...`, what `qhooks install` writes at user scope). The
 * settings reader leaves it out of the host's levels too: `qhooks run` logs the event itself, so running the recorder
 * as one of its hooks would log the event twice (and in a replay or hook test it records nothing anyway).
 */
export function isQhooksRecorder(command: string): boolean {
  return RECORD.test(command);
}
