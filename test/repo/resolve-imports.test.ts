import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createImportResolver, type ImportEdge, resolveImports } from "../../src/repo/imports/resolve.js";
import { testCovers } from "../../src/repo/imports/test-covers.js";
import { goModulePath, readManifests, rustCrateName } from "../../src/repo/manifests.js";
import { createParser, type ImportRef } from "../../src/repo/parse.js";
import { scanRepo } from "../../src/repo/scan.js";
import { copyPolyglot } from "./fixture.js";

describe("resolveImports on the polyglot fixture (scan → parse → resolve)", () => {
  let edges: ImportEdge[] = [];
  let paths: string[] = [];
  const parser = createParser();
  afterAll(() => parser.dispose());

  beforeAll(async () => {
    const root = copyPolyglot();
    const scan = scanRepo(root, { withContent: true });
    paths = scan.files.map((f) => f.path);
    const imports: Record<string, ImportRef[]> = {};
    for (const f of scan.files) imports[f.path] = (await parser.parseFile(f.path, f.content!, f.language)).imports;
    edges = resolveImports({ paths, imports, manifests: readManifests(scan.root, paths) });
  });

  const targets = (from: string) => edges.filter((e) => e.from === from).map((e) => e.to);

  it("python: absolute through the package root, relative with dots, submodules named in from-imports", () => {
    expect(targets("pyproj/tests/test_geometry.py")).toEqual(["pyproj/shapes/geometry.py"]);
    expect(targets("pyproj/tests/test_util.py")).toEqual(["pyproj/shapes/util.py"]);
    expect(targets("pyproj/shapes/geometry.py")).toEqual(["pyproj/shapes/util.py"]); // `from . import util`, `from .util import clamp`
    expect(targets("pyproj/shapes/sub/poly.py")).toEqual(["pyproj/shapes/geometry.py", "pyproj/shapes/util.py"]);
    expect(targets("pyproj/shapes/__init__.py")).toEqual(["pyproj/shapes/geometry.py"]);
  });

  it("typescript / javascript: .js → .ts, extensionless, directory index, require()", () => {
    expect(targets("web/src/index.ts")).toEqual(["web/src/helpers/index.ts", "web/src/math.ts"]);
    expect(targets("web/src/components/Button.tsx")).toEqual(["web/src/math.ts"]);
    expect(targets("web/src/legacy.js")).toEqual(["web/src/math.ts"]);
    expect(targets("web/src/math.test.ts")).toEqual(["web/src/math.ts"]);
  });

  it("go: module path from go.mod → package directory → its non-test files", () => {
    expect(targets("gosvc/main.go")).toEqual(["gosvc/store/store.go"]);
  });

  it("rust: mod declarations, crate::, super::super::, and the crate's own name from tests/", () => {
    expect(targets("rustcrate/src/lib.rs")).toEqual(["rustcrate/src/geometry.rs", "rustcrate/src/util/mod.rs"]);
    expect(targets("rustcrate/src/util/mod.rs")).toEqual(["rustcrate/src/util/helpers.rs"]);
    expect(targets("rustcrate/src/geometry.rs")).toEqual(["rustcrate/src/util/helpers.rs"]);
    expect(targets("rustcrate/src/util/helpers.rs")).toEqual(["rustcrate/src/geometry.rs"]);
    expect(targets("rustcrate/tests/geometry.rs")).toEqual(["rustcrate/src/geometry.rs"]);
  });

  it("java (and kotlin): package.Class → the file ending in package/Class.java; C includes; Ruby; shell source", () => {
    expect(targets("kotlin/App.kt")).toEqual(["java/src/main/java/com/example/shapes/Circle.java"]);
    expect(targets("java/src/main/java/com/example/shapes/Circle.java")).toEqual([]); // java.util.* is external
    expect(targets("csrc/geom.c")).toEqual(["csrc/geom.h"]);
    expect(targets("csrc/shape.cpp")).toEqual(["csrc/shape.hpp"]);
    expect(targets("ruby/lib/greeter.rb")).toEqual(["ruby/lib/greeter/version.rb"]);
    expect(targets("ruby/spec/greeter_spec.rb")).toEqual(["ruby/lib/greeter.rb"]);
    expect(targets("scripts/deploy.sh")).toEqual(["scripts/env.sh"]);
  });

  it("test_covers: imports first, then the file a test is named after", () => {
    const covers = testCovers(paths, edges).map((c) => `${c.test} -> ${c.target} (${c.via})`);
    expect(covers).toEqual([
      "csrc/test_geom.c -> csrc/geom.c (name)",
      "csrc/test_geom.c -> csrc/geom.h (import)",
      "gosvc/store/store_test.go -> gosvc/store/store.go (name)",
      "java/src/test/java/com/example/shapes/CircleTest.java -> java/src/main/java/com/example/shapes/Circle.java (name)",
      "pyproj/tests/test_geometry.py -> pyproj/shapes/geometry.py (import)",
      "pyproj/tests/test_util.py -> pyproj/shapes/util.py (import)",
      "ruby/spec/greeter_spec.rb -> ruby/lib/greeter.rb (import)",
      "rustcrate/tests/geometry.rs -> rustcrate/src/geometry.rs (import)",
      "web/src/math.test.ts -> web/src/math.ts (import)",
    ]);
  });
});

describe("createImportResolver edge cases", () => {
  const ref = (spec: string, names?: string[]): ImportRef => ({ spec, line: 1, ...(names ? { names } : {}) });

  it("python: src/ layout, package __init__, namespace fallbacks, nearest of duplicate module names", () => {
    const resolve = createImportResolver([
      "src/app/__init__.py",
      "src/app/core.py",
      "src/app/models/__init__.py",
      "src/app/models/user.py",
      "tools/app/core.py",
      "lib/legacy/thing.py",
      "scripts/run.py",
    ]);
    expect(resolve("scripts/run.py", ref("app.core"))).toEqual(["src/app/core.py"]);
    expect(resolve("scripts/run.py", ref("app.models", ["user", "User"]))).toEqual([
      "src/app/models/user.py",
      "src/app/models/__init__.py",
    ]);
    expect(resolve("scripts/run.py", ref("app"))).toEqual(["src/app/__init__.py"]);
    expect(resolve("scripts/run.py", ref("legacy.thing"))).toEqual(["lib/legacy/thing.py"]); // no __init__: lib/ prefix
    expect(resolve("src/app/models/user.py", ref("..core", ["x"]))).toEqual(["src/app/core.py"]);
    expect(resolve("src/app/models/user.py", ref("...outside"))).toEqual([]);
    expect(resolve("scripts/run.py", ref("os.path"))).toEqual([]);
  });

  it("js/ts: .mjs → .mts, index.tsx, parent traversal, aliases, bare packages stay external", () => {
    const resolve = createImportResolver([
      "app/src/lib/util.mts",
      "app/src/ui/index.tsx",
      "app/src/ui/button.jsx",
      "app/src/data.json",
      "app/src/main.ts",
    ]);
    expect(resolve("app/src/main.ts", ref("./lib/util.mjs"))).toEqual(["app/src/lib/util.mts"]);
    expect(resolve("app/src/main.ts", ref("./ui"))).toEqual(["app/src/ui/index.tsx"]);
    expect(resolve("app/src/ui/index.tsx", ref("./button"))).toEqual(["app/src/ui/button.jsx"]);
    expect(resolve("app/src/ui/index.tsx", ref("../data.json"))).toEqual(["app/src/data.json"]);
    expect(resolve("app/src/ui/index.tsx", ref("@/lib/util.mjs"))).toEqual(["app/src/lib/util.mts"]);
    expect(resolve("app/src/main.ts", ref("react"))).toEqual([]);
    expect(resolve("app/src/main.ts", ref("../../../escape"))).toEqual([]);
  });

  it("go: nested modules pick the longest module path; without go.mod a path tail still finds the package", () => {
    const paths = ["go.mod", "svc/go.mod", "svc/api/h.go", "svc/api/h_test.go", "lib/x.go", "internal/db/db.go"];
    const manifests = { goModules: { "": "example.com/root", svc: "example.com/root/svc" }, rustCrates: {} };
    const resolve = createImportResolver(paths, manifests);
    expect(resolve("lib/x.go", ref("example.com/root/svc/api"))).toEqual(["svc/api/h.go"]);
    expect(resolve("svc/api/h.go", ref("example.com/root/lib"))).toEqual(["lib/x.go"]);
    expect(resolve("lib/x.go", ref("fmt"))).toEqual([]);
    const bare = createImportResolver(paths);
    expect(bare("lib/x.go", ref("github.com/someone/proj/internal/db"))).toEqual(["internal/db/db.go"]);
  });

  it("rust: self::, super:: items, nested use lists, external crates unresolved", () => {
    const resolve = createImportResolver([
      "Cargo.toml",
      "src/main.rs",
      "src/net/mod.rs",
      "src/net/tcp.rs",
      "src/net/udp.rs",
      "src/cfg.rs",
    ]);
    expect(resolve("src/net/mod.rs", ref("self::tcp::Conn"))).toEqual(["src/net/tcp.rs"]);
    expect(resolve("src/net/tcp.rs", ref("super::udp", ["Socket"]))).toEqual(["src/net/udp.rs"]);
    expect(resolve("src/net/tcp.rs", ref("super::Shared"))).toEqual(["src/net/mod.rs"]);
    expect(resolve("src/main.rs", ref("crate::net", ["tcp", "udp::Socket"]))).toEqual([
      "src/net/tcp.rs",
      "src/net/udp.rs",
      "src/net/mod.rs",
    ]);
    expect(resolve("src/main.rs", ref("mod cfg"))).toEqual(["src/cfg.rs"]);
    expect(resolve("src/net/tcp.rs", ref("serde::Serialize"))).toEqual([]);
    expect(resolve("src/main.rs", ref("net::tcp"))).toEqual(["src/net/tcp.rs"]); // 2018 uniform path
  });

  it("java wildcards and static imports; c includes relative first, then by path suffix", () => {
    const resolve = createImportResolver([
      "a/src/main/java/org/acme/Foo.java",
      "a/src/main/java/org/acme/Bar.java",
      "b/src/main/java/org/acme/util/Strings.java",
      "native/include/acme/api.h",
      "native/src/impl.c",
      "native/src/local.h",
    ]);
    expect(resolve("b/src/main/java/org/acme/util/Strings.java", ref("org.acme", ["*"]))).toEqual([
      "a/src/main/java/org/acme/Foo.java",
      "a/src/main/java/org/acme/Bar.java",
    ]);
    expect(resolve("a/src/main/java/org/acme/Foo.java", ref("org.acme.util.Strings.join"))).toEqual([
      "b/src/main/java/org/acme/util/Strings.java",
    ]);
    expect(resolve("native/src/impl.c", ref("local.h"))).toEqual(["native/src/local.h"]);
    expect(resolve("native/src/impl.c", ref("acme/api.h"))).toEqual(["native/include/acme/api.h"]);
    expect(resolve("native/src/impl.c", ref("<acme/api.h>"))).toEqual(["native/include/acme/api.h"]);
    expect(resolve("native/src/impl.c", ref("<stdio.h>"))).toEqual([]);
  });

  it("manifests: go.mod module line and Cargo crate names with dashes", () => {
    expect(goModulePath("// c\nmodule github.com/x/y\n\ngo 1.22\n")).toBe("github.com/x/y");
    expect(rustCrateName('[package]\nname = "my-crate"\n[dependencies]\nname = "no"\n')).toBe("my_crate");
    expect(rustCrateName('[package]\nname = "pkg"\n[lib]\nname = "libname"\n')).toBe("libname");
  });
});

describe("testCovers naming conventions", () => {
  it("maps test names to subjects, preferring the same directory, then the mirrored tree", () => {
    const paths = [
      "pkg/foo.py",
      "pkg/tests/test_foo.py",
      "other/foo.py",
      "src/app/bar.ts",
      "src/app/__tests__/bar.spec.ts",
      "src/main/java/x/Baz.java",
      "src/test/java/x/BazTest.java",
      "lib/q.rb",
      "spec/q_spec.rb",
      "go/s.go",
      "go/s_test.go",
      "util.py",
      "a/util.py",
      "tests/test_util.py",
      "tests/conftest.py",
    ];
    const covers = testCovers(paths, []).map((c) => `${c.test} -> ${c.target}`);
    expect(covers).toEqual([
      "go/s_test.go -> go/s.go",
      "pkg/tests/test_foo.py -> pkg/foo.py",
      "spec/q_spec.rb -> lib/q.rb",
      "src/app/__tests__/bar.spec.ts -> src/app/bar.ts",
      "src/test/java/x/BazTest.java -> src/main/java/x/Baz.java",
    ]);
  });

  it("never links a test to another test, and keeps import links to non-test files only", () => {
    const paths = ["a.py", "test_a.py", "test_helpers.py"];
    const covers = testCovers(paths, [
      { from: "test_a.py", to: "test_helpers.py" },
      { from: "test_a.py", to: "a.py" },
    ]);
    expect(covers).toEqual([{ test: "test_a.py", target: "a.py", via: "import" }]);
  });
});

describe("readManifests", () => {
  it("reads go.mod and Cargo.toml from the fixture", () => {
    const root = copyPolyglot();
    const m = readManifests(root, ["gosvc/go.mod", "rustcrate/Cargo.toml", "README.md", "gone/go.mod"]);
    expect(m).toEqual({ goModules: { gosvc: "example.com/gosvc" }, rustCrates: { rustcrate: "poly_rs" } });
    expect(readFileSync(join(root, "gosvc/go.mod"), "utf8")).toContain("module");
  });
});
