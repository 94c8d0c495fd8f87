// The JSON fault locator agrees with JSON.parse on what is valid, and points at the place that is not.
import { describe, expect, it } from "vitest";

import { jsonErrorOffset, jsonProblem } from "../../src/transcript/formats/json-error.js";

const valid = [
  '{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]}',
  "[]",
  "{}",
  " [ {} , [ ] ] ",
  '"s"',
  "0",
  "[[[[]]]]",
];
const invalid: [string, number][] = [
  ["root:x:0:0:root", 0],
  ["[1,2", 4],
  ["[1 2]", 3],
  ['["abc', 5],
  ['{"a":1}x', 7],
  ['[{"role": tru}]', 10],
  ["", 0],
  ["[1,]", 3],
  ['{"a" 1}', 5],
  ["{1: 2}", 1],
  ["01", 1],
  ['"a\\qb"', 2],
  ['"tab\there"', 4],
];

describe("jsonErrorOffset", () => {
  it("finds no fault where JSON.parse succeeds", () => {
    for (const t of valid) {
      expect(() => JSON.parse(t)).not.toThrow();
      expect(jsonErrorOffset(t), t).toBe(-1);
    }
  });

  it("points at the first fault where JSON.parse fails", () => {
    for (const [t, at] of invalid) {
      expect(() => JSON.parse(t)).toThrow();
      expect(jsonErrorOffset(t), t).toBe(at);
    }
  });

  it("describes the place by line and column, never by content", () => {
    expect(jsonProblem('[\n  {"role": "user"}\n  {"role": "x"}\n]')).toBe("not valid JSON at line 3, column 3");
    expect(jsonProblem('[{"content": "secret')).toBe("not valid JSON: it ends early (line 1)");
    expect(jsonProblem("root:x:0:0:root:/root:/bin/bash")).toBe("not valid JSON at line 1, column 1");
  });
});
