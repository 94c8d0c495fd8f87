// Unsigned varints (7 bits a byte, low first), the compact form of the stored term postings and symbol bodies.

/** The numbers as varints, one after another. */
export function encodeVarints(xs: readonly number[]): Buffer {
  const b = Buffer.alloc(xs.length * 8);
  let o = 0;
  for (let x of xs) {
    while (x >= 0x80) {
      b[o++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    b[o++] = x;
  }
  return b.subarray(0, o);
}

/** Reads varints from `b` in order; a value cut off at the end is an error (a damaged store), never a hang. */
export function varintReader(b: Uint8Array): { more(): boolean; next(): number } {
  let p = 0;
  return {
    more: () => p < b.length,
    next(): number {
      let v = 0;
      let shift = 0;
      for (;;) {
        if (p >= b.length) throw new Error("a stored varint is cut off: the store is damaged");
        const byte = b[p++]!;
        v += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return v;
        shift += 7;
      }
    },
  };
}
