/**
 * A word of the command that runs a file: `./x.sh` as the program (`kind: "program"`), or `x.sh` as a shell's
 * script (`bash x.sh`, `kind: "shell-script"`). `start` and `end` locate the word in the command's text.
 */
export interface RunSite {
  readonly path: string;
  readonly kind: "program" | "shell-script";
  readonly start: number;
  readonly end: number;
}

/** A word of the command that runs a pinned file, and the hash of the bytes that were reviewed. */
export interface PinnedSite extends RunSite {
  readonly sha256: string;
}
