import { describe, expect, it } from "vitest";

import { encodeVarints, varintReader } from "../../src/text/varint.js";

const readAll = (b: Uint8Array): number[] => {
  const r = varintReader(b);
  const out: number[] = [];
  while (r.more()) out.push(r.next());
  return out;
};

describe("varints", () => {
  it("read back what was written, across the 7, 14, 21, 28 and 35-bit boundaries", () => {
    const xs = [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 2 ** 31 + 5, 2 ** 40];
    const b = encodeVarints(xs);
    expect(readAll(b)).toEqual(xs);
    expect(encodeVarints([127]).length).toBe(1);
    expect(encodeVarints([128]).length).toBe(2);
  });

  it("refuse a value cut off at the end instead of reading past it", () => {
    const b = encodeVarints([5, 300_000]);
    expect(() => readAll(b.subarray(0, b.length - 1))).toThrow(/cut off/);
    expect(() => readAll(Buffer.from([0x80]))).toThrow(/cut off/);
  });
});
