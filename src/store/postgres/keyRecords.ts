import type pg from "pg";
import type { KeyChangeAt, KeyChangeBody } from "../keyChange.js";

/**
 * A key record a central prune carried forward: the same body, with the chain it belongs to and its seq there. It is
 * appended to the maintaining writer's chain (a shipped chain is the laptop's: nothing may be appended to it here),
 * like the erasure and prune records that name the chain they are about.
 */
export type KeyCopyBody = KeyChangeBody & { readonly chain: string; readonly seq: number };

/** A key record row's chain and seq: its own, or those its body names when it is a copy a central prune made. */
export function keyRecordPlace(writer: string, seq: number, body: string): { readonly chain: string; readonly at: KeyChangeAt } {
  try {
    const parsed = JSON.parse(body) as Partial<KeyCopyBody>;
    if (typeof parsed?.chain === "string" && typeof parsed.seq === "number") {
      const { chain, seq: at, ...own } = parsed;
      return { chain, at: { seq: at, body: JSON.stringify(own) } };
    }
  } catch {
    // Not JSON: kept as it is, for keyPeriods to name.
  }
  return { chain: writer, at: { seq, body } };
}

/**
 * The key records of each chain (of `writer` only, when given): those in the chain itself and the copies a central
 * prune carried forward after deleting them, each at its seq in that chain. verify and evidence follow a chain's
 * keys through them.
 */
export async function chainKeyChanges(client: pg.Client, writer?: string): Promise<Map<string, KeyChangeAt[]>> {
  const { rows } = await client.query<{ writer_id: string; seq: string; body: Buffer }>(
    "SELECT writer_id, seq, body FROM qhooks_journal WHERE kind = 'key' ORDER BY writer_id, seq",
  );
  const changes = new Map<string, KeyChangeAt[]>();
  for (const r of rows) {
    const { chain, at } = keyRecordPlace(r.writer_id, Number(r.seq), r.body.toString("utf8"));
    if (writer !== undefined && chain !== writer) continue;
    const ofChain = changes.get(chain);
    if (ofChain) ofChain.push(at);
    else changes.set(chain, [at]);
  }
  return changes;
}
