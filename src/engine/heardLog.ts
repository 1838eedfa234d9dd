import type { AppendResult, EventLog, LogWarning } from "../store/eventLog.js";

/**
 * The log, with every warning its appends hand over also kept in `heard`: the warnings still go where they always
 * go (the outcome's warnings, stderr), and `qhooks run` also tells the person, in the host's answer, those they must
 * act on (runEvent.ts). Forwards each method the port has, and only those the log has.
 */
export function heardLog(log: EventLog): { readonly log: EventLog; readonly heard: LogWarning[] } {
  const heard: LogWarning[] = [];
  const note = (r: AppendResult): AppendResult => {
    heard.push(...r.warnings);
    return r;
  };
  const appendNow = log.appendNow?.bind(log);
  const placeOf = log.placeOf?.bind(log);
  const settle = log.settle?.bind(log);
  const wrapped: EventLog = {
    ...(log.keepsNothing === undefined ? {} : { keepsNothing: log.keepsNothing }),
    append: async (entries, options) => note(await log.append(entries, options)),
    ...(appendNow === undefined
      ? {}
      : {
          appendNow: (entries, options) => {
            const r = appendNow(entries, options);
            return r === null ? null : note(r);
          },
        }),
    stopBlockStreak: (sessionId) => log.stopBlockStreak(sessionId),
    ...(placeOf === undefined ? {} : { placeOf }),
    ...(settle === undefined ? {} : { settle }),
    close: () => log.close(),
  };
  return { log: wrapped, heard };
}
