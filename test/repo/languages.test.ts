import { describe, expect, it } from "vitest";

import { detectLanguage, isTestPath, type LanguageId } from "../../src/repo/languages.js";

describe("detectLanguage", () => {
  it.each([
    ["a/b.py", "python"],
    ["x.ts", "typescript"],
    ["x.d.ts", "typescript"],
    ["x.tsx", "tsx"],
    ["x.jsx", "javascript"],
    ["x.mjs", "javascript"],
    ["x.go", "go"],
    ["x.rs", "rust"],
    ["X.java", "java"],
    ["x.c", "c"],
    ["x.cc", "cpp"],
    ["x.hpp", "cpp"],
    ["x.rb", "ruby"],
    ["Gemfile", "ruby"],
    ["x.kt", "kotlin"],
    ["x.cs", "csharp"],
    ["x.php", "php"],
    ["x.scala", "scala"],
    ["x.swift", "swift"],
    ["deploy.sh", "shell"],
    ["README.md", "markdown"],
    [".cursorrules", "markdown"],
    ["Dockerfile", "dockerfile"],
    ["Makefile", "makefile"],
    ["LICENSE", null],
    ["x.unknownext", null],
  ])("%s → %s", (path, lang) => {
    expect(detectLanguage(path)).toBe(lang);
  });

  it("treats a .h header as C unless its content looks like C++", () => {
    expect(detectLanguage("x.h")).toBe("c");
    expect(detectLanguage("x.h", "#include <stdio.h>\nint f(void);\n")).toBe("c");
    expect(detectLanguage("x.h", "#pragma once\nnamespace a {\nclass B {};\n}\n")).toBe("cpp");
    expect(detectLanguage("x.h", "template <typename T>\nT id(T x);\n")).toBe("cpp");
  });
});

describe("isTestPath", () => {
  const cases: Array<[string, LanguageId | null, boolean]> = [
    ["pkg/test_foo.py", "python", true],
    ["pkg/foo_test.py", "python", true],
    ["pkg/tests/helpers.py", "python", true],
    ["pkg/conftest.py", "python", true],
    ["pkg/testing.py", "python", false],
    ["pkg/contest.py", "python", false],
    ["src/a.test.ts", "typescript", true],
    ["src/a.spec.js", "javascript", true],
    ["src/a.test.tsx", "tsx", true],
    ["src/__tests__/a.ts", "typescript", true],
    ["src/latest.ts", "typescript", false],
    ["pkg/foo_test.go", "go", true],
    ["pkg/testdata/x.go", "go", false],
    ["pkg/foo.go", "go", false],
    ["src/test/java/a/B.java", "java", true],
    ["src/main/java/a/BTest.java", "java", true],
    ["src/main/java/a/TestUtils.java", "java", true],
    ["src/main/java/a/Contest.java", "java", false],
    ["crate/tests/it.rs", "rust", true],
    ["crate/src/tests.rs", "rust", true],
    ["crate/src/lib.rs", "rust", false],
    ["spec/models/user_spec.rb", "ruby", true],
    ["test/test_user.rb", "ruby", true],
    ["lib/user.rb", "ruby", false],
    ["c/test_geom.c", "c", true],
    ["cc/geom_unittest.cc", "cpp", true],
    ["Tests/FooTests.cs", "csharp", true],
    ["tests/data/sample.json", "json", false],
    ["tests/README.md", "markdown", false],
    ["tests/x.unknown", null, false],
  ];
  it.each(cases)("%s (%s) → %s", (path, lang, expected) => {
    expect(isTestPath(path, lang)).toBe(expected);
  });
});
