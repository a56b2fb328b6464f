// Short, stable content hashes (not cryptographic): used to notice that a
// built-in scenario changed since a link was made.

/** FNV-1a 32-bit hash of the UTF-16 code units of `text`, as 8 lowercase hex digits. */
export function fnv1a32Hex(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
