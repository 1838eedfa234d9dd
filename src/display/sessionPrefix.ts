/**
 * Session ids in tables: agents use UUIDs, whose 36 characters would take a third of a terminal. Tables show the
 * shortest prefix, of at least `min` characters, that tells apart every session in the table (as git shortens
 * commit hashes), and `--session` takes such a prefix back.
 */
export function sessionShortener(ids: readonly (string | null)[], min = 8): (id: string | null) => string {
  const distinct = [...new Set(ids.filter((id): id is string => id !== null))].map((id) => Array.from(id)).sort(compare);
  let length = min;
  for (let i = 1; i < distinct.length; i++) length = Math.max(length, commonPrefix(distinct[i - 1]!, distinct[i]!) + 1);
  return (id) => {
    if (id === null) return "-";
    const chars = Array.from(id);
    // Cutting one or two characters saves nothing once the ellipsis takes their place.
    return chars.length <= length + 1 ? id : `${chars.slice(0, length).join("")}…`;
  };
}

const compare = (a: string[], b: string[]) => (a.join("") < b.join("") ? -1 : 1);

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
