// Query terms and anchors extracted from real-looking issue texts.
import { describe, expect, it } from "vitest";

import { extractAnchors, looksLikeCode, queryTerms } from "../../src/retrieval/query.js";
import { pathPrior } from "../../src/retrieval/rank.js";

const kinds = (text: string) => extractAnchors(text).map((a) => `${a.kind}:${a.text}`);

describe("query terms", () => {
  it("splits identifiers, keeps whole ones, drops stop words and quotes for FTS5", () => {
    const q = queryTerms('The getUserName() call in "user_service" is broken');
    expect(q.tokens).toEqual(expect.arrayContaining(["getusername", "user", "name", "user_service", "service"]));
    expect(q.tokens).not.toContain("the");
    expect(q.match).toContain('"getusername"');
  });
  it("an empty or stop-word-only query has nothing to match", () => {
    expect(queryTerms("").match).toBe("");
    expect(queryTerms("the and of it is").match).toBe("");
  });
});

describe("anchors", () => {
  it.each([
    [
      '  File "/usr/lib/python3/site-packages/requests/sessions.py", line 42, in request',
      "frame:/usr/lib/python3/site-packages/requests/sessions.py",
    ],
    ["    at Object.<anonymous> (lib/core/Axios.js:17:11)", "frame:lib/core/Axios.js"],
    ["\tat com.google.gson.Gson.fromJson(Gson.java:802)", "module:com.google.gson.Gson"],
    ["In requests/sessions.py is a command", "path:requests/sessions.py"],
    ["run pytest testing/test_assertion.py::test_foo", "test:testing/test_assertion.py"],
    ["calling xarray.core.dataset.Dataset.merge fails", "module:xarray.core.dataset.Dataset.merge"],
    ["the `to_netcdf` method", "identifier:to_netcdf"],
    ["StreamReader and parseHTTPResponse", "identifier:parseHTTPResponse"],
  ])("%s", (text, expected) => {
    expect(kinds(text)).toContain(expected);
  });

  it("prose words are not code identifiers", () => {
    expect(looksLikeCode("Hello")).toBe(false);
    expect(looksLikeCode("HTTP")).toBe(false);
    expect(looksLikeCode("snake_case")).toBe(true);
    expect(looksLikeCode("camelCase")).toBe(true);
    expect(kinds("e.g. this is i.e. prose")).toEqual([]);
  });

  it("names files by phrases, types' members, annotations; Title Case is not a class name", () => {
    const a = extractAnchors(
      "The Language Card breaks: in the stats card, `Buf::get_int()` and @Captor fail. duck_array_ops is fine",
    );
    const has = (kind: string, text: string) => a.some((x) => x.kind === kind && x.text === text);
    expect(has("phrase", "statscard")).toBe(true);
    expect(has("member", "Buf::get_int")).toBe(true);
    expect(has("identifier", "Captor")).toBe(true);
    expect(has("identifier", "Card")).toBe(false);
    // A snake_case identifier is not also read as a phrase of plain words.
    expect(has("phrase", "duckarrayops")).toBe(false);
    expect(pathPrior("examples/view-constructor/index.js")).toBeLessThan(1);
    expect(pathPrior("lib/application.js")).toBe(1);
    expect(pathPrior("java/src/main/java/com/example/shapes/Circle.java")).toBe(1);
    expect(pathPrior("doc/conf.py")).toBeLessThan(1);
  });
});
