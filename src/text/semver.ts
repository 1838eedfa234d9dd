/** A version as semantic versioning reads it: three numbers, an optional pre-release, build metadata ignored. */
interface Version {
  readonly core: readonly [number, number, number];
  readonly pre: readonly (number | string)[];
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(text: string): Version | null {
  const m = VERSION.exec(text.trim());
  if (m === null) return null;
  const pre = m[4] === undefined ? [] : m[4].split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre };
}

/**
 * The order of two versions by semantic versioning's precedence: -1, 0 or 1; null when either is not a version.
 * Numbers compare as numbers (0.10.0 is after 0.9.0), a pre-release comes before its release (1.0.0-rc.2 <
 * 1.0.0), pre-release parts compare numerically or as text, numbers first; build metadata does not count.
 */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | null {
  const x = parse(a);
  const y = parse(b);
  if (x === null || y === null) return null;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! < y.core[i]! ? -1 : 1;
  if (x.pre.length === 0 || y.pre.length === 0) return x.pre.length === y.pre.length ? 0 : x.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i]!, y.pre[i]!];
    if (p === q) continue;
    if (typeof p === "number" && typeof q === "number") return p < q ? -1 : 1;
    if (typeof p === "number") return -1;
    if (typeof q === "number") return 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length === y.pre.length ? 0 : x.pre.length < y.pre.length ? -1 : 1;
}
