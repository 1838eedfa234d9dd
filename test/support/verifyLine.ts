/**
 * The record count of a passing `qhooks verify` line, or null when the line is not one. A long log also says how many
 * signed heads still match (one every QHOOKS_SIGN_EVERY records), which tests of the chain's length do not care about.
 */
export function verifiedRecords(stdout: string): number | null {
  const m = /^ok: (\d+) records(?: \([^\n]*\))?$/.exec(stdout.trim());
  return m ? Number(m[1]) : null;
}
