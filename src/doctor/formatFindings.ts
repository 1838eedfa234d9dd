import type { DoctorFinding } from "../schema/doctor.js";

/** `file:line: level rule: path: message` lines (each escaped by `shown`), each with its fix below, then one count line. */
export function prettyFindings(findings: readonly DoctorFinding[], hooks: number, shown: (text: string) => string): string {
  const lines: string[] = [];
  for (const f of findings) {
    const where = f.file === null ? "(no file)" : `${f.file}${f.line === null ? "" : `:${f.line}`}`;
    lines.push(shown(`${where}: ${f.level} ${f.rule}: ${f.path === null ? "" : `${f.path}: `}${f.message}`));
    lines.push(shown(`  fix: ${f.fix}`));
  }
  lines.push(summaryLine(findings, hooks));
  return lines.join("\n");
}

export function summaryLine(findings: readonly DoctorFinding[], hooks: number): string {
  const count = (level: DoctorFinding["level"]) => findings.filter((f) => f.level === level).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (findings.length === 0) return `qhooks doctor: ${plural(hooks, "hook")} checked, no findings`;
  return `qhooks doctor: ${plural(hooks, "hook")} checked: ${plural(count("error"), "error")}, ${plural(count("warn"), "warning")}, ${count("info")} info`;
}

/**
 * GitHub Actions workflow commands: `::error file=F,line=L,title=T::message`. Properties and messages are escaped
 * as the runner reads them (`%`, CR, LF; `:` and `,` in properties), so a file name or message cannot end the
 * command early or start another.
 */
export function githubFindings(findings: readonly DoctorFinding[]): string {
  return findings
    .map((f) => {
      const command = f.level === "error" ? "error" : f.level === "warn" ? "warning" : "notice";
      const props = [
        ...(f.filePath !== null ? [`file=${escapeProperty(f.filePath)}`] : []),
        ...(f.line !== null ? [`line=${f.line}`] : []),
        `title=${escapeProperty(`qhooks ${f.rule}`)}`,
      ];
      const message = `${f.path === null ? "" : `${f.path}: `}${f.message} (fix: ${f.fix})`;
      return `::${command} ${props.join(",")}::${escapeData(message)}`;
    })
    .join("\n");
}

const escapeData = (text: string): string => text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
const escapeProperty = (text: string): string => escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
