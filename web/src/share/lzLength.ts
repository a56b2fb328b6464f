// The length of the text lz-string's decompressFromEncodedURIComponent would return, found
// without building it. lz-string's output is not bounded by its input: each code may stand for
// a dictionary entry one character longer than the last, so about 85,000 characters of a link
// decompress to some 500 million, and the tab runs out of memory before any size check sees
// the text. Links read `s=` through this first (url.ts decodeScenarioText).
//
// It walks the same bit stream as lz-string 1.5.0's `_decompress` (6 bits per character of
// the URI-safe alphabet, codes of a width that grows with the dictionary; 0 and 1 bring a new
// 8- or 16-bit character, 2 ends the stream), keeping each dictionary entry's length instead of
// its text.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$';
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

/** What {@link decompressedLength} found. */
export type LzLength = { kind: 'length'; length: number } | { kind: 'over'; atLeast: number } | { kind: 'damaged' };

/**
 * The length (UTF-16 units) of `decompressFromEncodedURIComponent(encoded)`, or `over` as soon
 * as it passes `max`, or `damaged` where lz-string would return null or "". Linear in the input.
 */
export function decompressedLength(encodedIn: string, max: number): LzLength {
  if (encodedIn === '') return { kind: 'damaged' };
  const encoded = encodedIn.replace(/ /g, '+');
  const length = encoded.length;
  // A character outside the alphabet reads as 0, as in lz-string (getBaseValue gives undefined).
  const value = (i: number): number => VALUE.get(encoded.charAt(i)) ?? 0;
  let val = value(0);
  let position = 32;
  let index = 1;
  const read = (width: number): number => {
    let bits = 0;
    for (let power = 1; power !== 2 ** width; power *= 2) {
      const bit = val & position;
      position >>= 1;
      if (position === 0) {
        position = 32;
        val = value(index++);
      }
      if (bit > 0) bits += power;
    }
    return bits;
  };
  // Entry lengths; codes 0-2 are the control codes (never looked up as entries).
  const dict: number[] = [0, 0, 0];
  let enlargeIn = 4;
  let numBits = 3;
  const first = read(2);
  // 2 ends an empty stream; 3 is no code: lz-string reads on with an undefined first entry
  // (joined as nothing, or a throw later), which no compressed text starts with.
  if (first !== 0 && first !== 1) return { kind: 'damaged' };
  read(first === 0 ? 8 : 16);
  dict.push(1);
  let w = 1;
  let total = 1;
  for (;;) {
    if (index > length) return { kind: 'damaged' };
    let c = read(numBits);
    if (c === 2) return { kind: 'length', length: total };
    if (c === 0 || c === 1) {
      read(c === 0 ? 8 : 16);
      dict.push(1);
      c = dict.length - 1;
      enlargeIn--;
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    let entry: number;
    if (c < dict.length && c >= 3) entry = dict[c] ?? 0;
    else if (c === dict.length) entry = w + 1;
    else return { kind: 'damaged' };
    total += entry;
    if (total > max) return { kind: 'over', atLeast: total };
    dict.push(w + 1);
    enlargeIn--;
    w = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}
