import { describe, expect, it } from "vitest";

import { mergePostings } from "../../src/storage/graph/terms.js";
import { encodeVarints, varintReader } from "../../src/text/varint.js";

/** Postings as stored: ascending file ids as gaps, each followed by its count. */
function encode(pairs: ReadonlyMap<number, number>): Buffer {
  const xs: number[] = [];
  let prev = 0;
  for (const doc of [...pairs.keys()].sort((a, b) => a - b)) {
    xs.push(doc - prev, pairs.get(doc)!);
    prev = doc;
  }
  return encodeVarints(xs);
}

function decode(b: Buffer): Map<number, number> {
  const out = new Map<number, number>();
  const r = varintReader(b);
  let doc = 0;
  while (r.more()) {
    doc += r.next();
    out.set(doc, r.next());
  }
  return out;
}

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe("merging a term's postings", () => {
  it("gives what taking the files out and putting the new counts in gives, for random postings and changes", () => {
    const rnd = random(7);
    for (let round = 0; round < 300; round++) {
      const stored = new Map<number, number>();
      const span = 1 + Math.floor(rnd() * 50_000);
      for (let i = Math.floor(rnd() * 40); i > 0; i--)
        stored.set(1 + Math.floor(rnd() * span), 1 + Math.floor(rnd() * 300));
      const out = new Set<number>();
      for (const doc of stored.keys()) if (rnd() < 0.3) out.add(doc);
      const ins = new Map<number, number>();
      for (let i = Math.floor(rnd() * 5); i > 0; i--)
        ins.set(1 + Math.floor(rnd() * span), 1 + Math.floor(rnd() * 200_000));
      for (const doc of out) if (rnd() < 0.5) ins.set(doc, stored.get(doc)!);
      const expected = new Map([...stored].filter(([d]) => !out.has(d)));
      for (const [d, n] of ins) expected.set(d, n);
      const merged = mergePostings(
        stored.size ? encode(stored) : undefined,
        out,
        [...ins].sort((a, b) => a[0] - b[0]),
      );
      const same = expected.size === stored.size && [...expected].every(([d, n]) => stored.get(d) === n);
      if (same) expect(merged).toBe("unchanged");
      else {
        expect(merged).not.toBe("unchanged");
        expect([...decode(merged as Buffer)].sort((a, b) => a[0] - b[0])).toEqual(
          [...expected].sort((a, b) => a[0] - b[0]),
        );
        expect(Buffer.compare(merged as Buffer, encode(expected))).toBe(0);
      }
    }
  });

  it("leaves a file saved again with the same count unwritten, and writes one whose count changed", () => {
    const stored = encode(
      new Map([
        [3, 2],
        [10, 5],
        [400, 1],
      ]),
    );
    expect(mergePostings(stored, new Set([10]), [[10, 5]])).toBe("unchanged");
    const changed = mergePostings(stored, new Set([10]), [[10, 6]]);
    expect(decode(changed as Buffer)).toEqual(
      new Map([
        [3, 2],
        [10, 6],
        [400, 1],
      ]),
    );
  });

  it("empties the postings when their last file goes", () => {
    const merged = mergePostings(encode(new Map([[42, 1]])), new Set([42]), []);
    expect(merged).not.toBe("unchanged");
    expect((merged as Buffer).length).toBe(0);
  });
});
