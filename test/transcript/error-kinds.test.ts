// Failures read from the words each tool, runtime, compiler and test runner prints when it fails, with the tally or
// exit line kept only when nothing says more; counts of zero, echoed edits and listings are not failures.
import { describe, expect, it } from "vitest";

import { failures } from "../../src/transcript/extraction/extract.js";
import { parseText } from "../../src/transcript/formats/parse.js";
import { claudeCodeSession, type Step } from "../helpers/session.js";

const failureTexts = (steps: Step[]): string[] =>
  failures(parseText(claudeCodeSession(steps), "claude-code-jsonl").turns, undefined).map((f) => f.text);

/** One failed command's output as a session's only failure source. */
const ran = (command: string, output: string, error = true): string[] =>
  failureTexts([{ user: "Run the checks." }, { bash: { command, output, error } }]);

describe("failures: each tool's own words", () => {
  it("reads go test's failing test, not its package tally", () => {
    const got = ran(
      "go test ./...",
      [
        "=== RUN   TestParseDate",
        "--- FAIL: TestParseDate (0.00s)",
        "FAIL",
        "FAIL\tgithub.com/acme/cal/parse\t0.012s",
        "ok  \tgithub.com/acme/cal/render\t0.020s",
      ].join("\n"),
    );
    expect(got).toEqual(["--- FAIL: TestParseDate (0.00s)"]);
  });

  it("reads a Rust panic and a compiler error code, not cargo's closing lines", () => {
    expect(
      ran(
        "cargo test",
        [
          "running 2 tests",
          "test tests::adds ... ok",
          "thread 'tests::splits' panicked at src/lib.rs:42:9:",
          "index out of bounds: the len is 3 but the index is 7",
          "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        ].join("\n"),
      ),
    ).toContain("thread 'tests::splits' panicked at src/lib.rs:42:9:");
    const build = ran(
      "cargo build",
      [
        "   Compiling cal v0.1.0 (/home/dev/cal)",
        "error[E0308]: mismatched types",
        "  --> src/main.rs:4:18",
        'error: could not compile `cal` (bin "cal") due to 1 previous error',
      ].join("\n"),
    );
    expect(build).toEqual(["error[E0308]: mismatched types"]);
  });

  it("keeps cargo's tally when it is all the output says", () => {
    const got = ran("cargo test -q", "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured");
    expect(got).toEqual(["test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured"]);
  });

  it("reads the compiler's error under make, not make's own line", () => {
    const got = ran(
      "make",
      [
        "cc -O2 -c parse.c -o parse.o",
        "parse.c:10:5: error: 'count' undeclared (first use in this function)",
        "make: *** [Makefile:12: parse.o] Error 1",
      ].join("\n"),
    );
    expect(got).toEqual(["parse.c:10:5: error: 'count' undeclared (first use in this function)"]);
    expect(ran("make all", "make: *** [Makefile:8: all] Error 2")).toEqual(["make: *** [Makefile:8: all] Error 2"]);
  });

  it("reads tsc's diagnostics in both of its layouts, not its count", () => {
    expect(
      ran("npx tsc --noEmit", "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."),
    ).toEqual(["src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."]);
    const pretty = ran(
      "npx tsc -p tsconfig.json --noEmit",
      [
        "src/routes/user.ts:20:8 - error TS2315: Type 'AuthenticatedRequest' is not generic.",
        "",
        "20   req: AuthenticatedRequest<Params>,",
        "          ~~~~~~~~~~~~~~~~~~~~",
        "",
        "Found 1 error in src/routes/user.ts:20",
      ].join("\n"),
    );
    expect(pretty).toEqual(["src/routes/user.ts:20:8 - error TS2315: Type 'AuthenticatedRequest' is not generic."]);
  });

  it("reads an editor's TypeScript diagnostic after a save", () => {
    const got = failureTexts([
      { user: "Type the token." },
      {
        tool: {
          name: "write_to_file",
          input: { path: "bff/src/config/keycloak.ts", content: "export const grant = {};" },
          output: [
            "The content was successfully saved to bff/src/config/keycloak.ts.",
            "",
            "New problems detected after saving the file:",
            "bff/src/config/keycloak.ts",
            "- [ts Error] Line 143: Conversion of type '{ access_token: string; }' to type 'Grant' may be a mistake.",
          ].join("\n"),
          error: true,
        },
      },
    ]);
    expect(got).toEqual([
      "[ts Error] Line 143: Conversion of type '{ access_token: string; }' to type 'Grant' may be a mistake.",
    ]);
  });

  it("reads ESLint's error lines before its problem count", () => {
    const got = ran(
      "npx eslint src",
      [
        "/home/dev/app/src/api.ts",
        "  24:8  error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any",
        "",
        "✖ 1 problem (1 error, 0 warnings)",
      ].join("\n"),
    );
    expect(got).toEqual(["24:8  error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any"]);
  });

  it("reads Jest's failing test and its error, not the suite tallies", () => {
    const got = ran(
      "npx jest",
      [
        "FAIL tests/visibility.test.ts",
        "  ● Visibility › private channels are left out of the sitemap",
        "",
        "    expect(received).toBe(expected) // Object.is equality",
        "",
        "Test Suites: 1 failed, 8 passed, 9 total",
        "Tests:       1 failed, 62 passed, 63 total",
      ].join("\n"),
    );
    expect(got).toContain("● Visibility › private channels are left out of the sitemap");
    expect(got.some((l) => l.startsWith("Test Suites:") || l.startsWith("Tests:"))).toBe(false);
  });

  it("reads a Java exception, an Ant or Gradle build failure, npm's error and a crash", () => {
    expect(
      ran("java -jar app.jar", 'Exception in thread "main" java.lang.IllegalStateException: no config file'),
    ).toEqual(['Exception in thread "main" java.lang.IllegalStateException: no config file']);
    expect(ran("ant dist", "BUILD FAILED")).toEqual(["BUILD FAILED"]);
    const gradle = ran(
      "./gradlew build",
      [
        "FAILURE: Build failed with an exception.",
        "",
        "* What went wrong:",
        "Execution failed for task ':app:compileJava'.",
        "",
        "BUILD FAILED in 2s",
      ].join("\n"),
    );
    expect(gradle).toEqual(["Execution failed for task ':app:compileJava'."]);
    expect(ran("npm run build", 'npm ERR! Missing script: "build"\nnpm ERR! code 1')).toEqual([
      'npm ERR! Missing script: "build"',
    ]);
    expect(ran("./bin/index data.bin", "Segmentation fault (core dumped)")).toEqual([
      "Segmentation fault (core dumped)",
    ]);
  });
});

describe("failures: errors inside other output", () => {
  it("reads the linter's error a harness lists above the file an edit would have made", () => {
    const listing = Array.from({ length: 12 }, (_, i) => `${282 + i}:        required.append('Rows')`);
    const got = failureTexts([
      { user: "Fix the pixel check." },
      {
        bash: {
          command: "edit 287:288",
          output: [
            "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.",
            "",
            "ERRORS:",
            "- E999 SyntaxError: unmatched ']'",
            "",
            "This is how your edit would have looked if applied",
            "[File: /repo/pixel/handler.py (373 lines total)]",
            ...listing,
          ].join("\n"),
        },
      },
    ]);
    expect(got).toEqual(["E999 SyntaxError: unmatched ']'"]);
  });

  it("reads the agent naming the kind of error the person's traceback shows, not its other explanations", () => {
    const got = failureTexts([
      {
        user: [
          '  File "C:\\work\\backend\\db.py", line 43',
          "    return f\"sqlite:////{str(p).replace('\\\\', '/')}\"",
        ].join("\n"),
      },
      {
        assistant:
          "The error is a syntax error from using a backslash inside an f-string expression. Move the replacement out of the f-string.",
      },
      { assistant: "The error occurs because we need to update how the client is created. Let me fix that." },
    ]);
    expect(got).toEqual([
      "The error is a syntax error from using a backslash inside an f-string expression. Move the replacement out of the f-string.",
    ]);
  });
});

describe("failures: lines with no failure in them", () => {
  it("leaves out counts of zero", () => {
    for (const output of [
      "Found 0 errors. Watching for file changes.",
      "Tests: 0 failed, 12 passed, 12 total",
      "0 errors, 2 warnings",
      "✓ lint passed with 0 errors",
    ])
      expect(ran("npm run check", output, false)).toEqual([]);
  });

  it("does not take a failed command's listing as its message", () => {
    const got = ran(
      "git log --oneline -3; ls -la shared/",
      [
        "03eca31 shared(api): add mock.ts stub",
        "8705fb5 shared(api): flatten URLs",
        "drwxr-xr-x  - dev 21 May 16:05 stores",
        ".rw-r--r-- 529 dev 21 May 16:05 tsconfig.json",
      ].join("\n"),
    );
    expect(got).toEqual([]);
  });

  it("still takes a failed call's one-line message", () => {
    const got = failureTexts([
      { user: "Update the header." },
      {
        tool: {
          name: "Write",
          input: { file_path: "/home/dev/site/src/header.ts", content: "x" },
          output: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
          error: true,
        },
      },
    ]);
    expect(got).toEqual(["File has not been read yet. Read it first before writing to it."]);
  });
});
