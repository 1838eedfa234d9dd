import type { Peer } from "./peer.js";

/** Installs @google/gemini-cli-core into a temporary directory and wraps its HookSystem; a string says why not. */
export async function startGeminiPeer(): Promise<Peer | string> {
  return "not implemented yet";
}
