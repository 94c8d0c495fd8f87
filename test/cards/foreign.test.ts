// Which code counts as foreign to a session: a language that neither its files nor the task's paths use.
import { describe, expect, it } from "vitest";

import { foreignTo } from "../../src/cards/candidates.js";

describe("foreignTo", () => {
  it("marks code in other languages than the session's files and the task's paths", () => {
    const foreign = foreignTo(["pyproj/shapes/geometry.py", "pyproj/tests/test_geometry.py"], ["web/src/math.ts"]);
    expect(foreign("rustcrate/src/geometry.rs")).toBe(true);
    expect(foreign("csrc/shape.hpp")).toBe(true);
    expect(foreign("pyproj/shapes/util.py")).toBe(false);
    // A path the task names brings its language (and its family) in.
    expect(foreign("web/src/index.js")).toBe(false);
    // Prose and data are never foreign code.
    expect(foreign("README.md")).toBe(false);
  });

  it("counts a header and its source, and JavaScript and TypeScript, as one", () => {
    const foreign = foreignTo(["csrc/shape.cpp"], []);
    expect(foreign("csrc/shape.h")).toBe(false);
    expect(foreign("csrc/shape.hpp")).toBe(false);
    expect(foreign("gosvc/store/store.go")).toBe(true);
  });

  it("says nothing without session files in a code language", () => {
    expect(foreignTo([], ["web/src/math.ts"])("rustcrate/src/geometry.rs")).toBe(false);
    expect(foreignTo(["docs/notes.md"], [])("rustcrate/src/geometry.rs")).toBe(false);
  });
});
