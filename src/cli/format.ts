/** A plain text table: columns padded to their widest cell, long cells cut with an ellipsis. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], maxWidth = 60): string {
  const cut = (cell: string) => {
    const flat = cell.replace(/\s+/g, " ");
    return flat.length > maxWidth ? `${flat.slice(0, maxWidth - 1)}…` : flat;
  };
  const cells = [header, ...rows].map((r) => r.map(cut));
  // A fold, not Math.max(...column): a spread passes every row on the stack, and `sessions` can list 200,000.
  const widths = header.map((_, i) => cells.reduce((widest, r) => Math.max(widest, r[i]?.length ?? 0), 0));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n");
}
