/**
 * Whether a hook command calls `qhooks run ... --format hook` without `--settings`: qhooks judging the host's event
 * with the host's own levels (what `qhooks install --scope managed` writes). Such an entry in a file qhooks reads as
 * one of the host's levels would have qhooks run itself, so the settings reader leaves it out, `hooks add` refuses to
 * write it there, and install refuses to install over one. A recorder (`qhooks record`) is not one: it judges nothing,
 * and a replay or hook test runs it as any hook (it then keeps live history as it was). Recognised by the CLI's name
 * (`qhooks`, or the path of its `qhooks.cjs`) followed by `run`, quoted or not.
 */
const RUN = /(?:^|[\s/'"])qhooks(?:\.c?js)?['"]?\s+run(?=\s)(.*)$/s;

export function isQhooksSelfCall(command: string): boolean {
  const rest = RUN.exec(command)?.[1];
  return rest !== undefined && /--format(?:\s+|=)['"]?hook\b/.test(rest) && !/--settings\b/.test(rest);
}

const CLI_CALL = /(?:^|[\s/'"])qhooks(?:\.c?js)?['"]?\s+(?:run|record)(?=\s|$)/;

/**
 * Whether a hook command is one of qhooks' own entries: the qhooks CLI (`qhooks`, or the path of its `qhooks.cjs`)
 * called to judge (`run`) or record (`record`) the host's event, as `qhooks install` and `record --print-settings`
 * write them. doctor checks such entries as one install, not each as a hook of its own.
 */
export const isQhooksEntry = (command: string): boolean => CLI_CALL.test(command);
