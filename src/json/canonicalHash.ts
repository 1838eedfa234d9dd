import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so that equal content always serialises the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      Object.defineProperty(sorted, k, { value: (v as Record<string, unknown>)[k], enumerable: true });
    }
    return sorted;
  });
}

export const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");
