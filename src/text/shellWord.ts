/** A string as one single-quoted sh word, whatever it holds (a `'` becomes `'\''`). */
export const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** A string as one sh word: as it is when only safe characters make it up, else single-quoted. */
export const shellWord = (text: string): string => (/^[\w/.,:@%+=-]+$/.test(text) ? text : shellQuoted(text));
