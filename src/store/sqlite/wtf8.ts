const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * Bytes as UTF-8 that may also hold surrogate code points (three bytes, ED A0..BF xx): what better-sqlite3 writes
 * for a JavaScript string with a lone surrogate. Each becomes that surrogate again; other invalid bytes U+FFFD.
 */
export function decodeWtf8(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Not plain UTF-8: decoded by hand below.
  }
  let out = "";
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    let cp = need === 0 ? b : need === 1 ? b & 0x1f : need === 2 ? b & 0x0f : b & 0x07;
    let ok = need >= 0 && i + need < bytes.length;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok || (need === 2 && cp < 0x800) || (need === 3 && (cp < 0x10000 || cp > 0x10ffff))) {
      out += "\ufffd";
      i++;
      continue;
    }
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}
