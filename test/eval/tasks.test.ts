// Task files: valid lines load, blank lines are skipped, a bad line is named by number and field.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { loadTasks, type Task, taskView } from "../../bench/localize/tasks.js";
import { AppError } from "../../src/errors.js";
import { tmpDir } from "../helpers/tmp.js";

const good = {
  id: "psf__requests-1",
  repo: "psf/requests",
  commit: "0123456789abcdef0123456789abcdef01234567",
  query: "Session.send drops cookies",
  gold: ["requests/sessions.py"],
};

function file(lines: (object | string)[]): string {
  const f = join(tmpDir(), "tasks.jsonl");
  writeFileSync(f, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
  return f;
}

function failure(f: string): AppError {
  try {
    loadTasks(f);
  } catch (err) {
    return err as AppError;
  }
  throw new Error("loadTasks accepted a bad file");
}

describe("loadTasks", () => {
  it("loads every task and skips blank and CRLF-ended lines", () => {
    const f = join(tmpDir(), "tasks.jsonl");
    const b = { ...good, id: "b", git_dir: "/abs/git" };
    writeFileSync(f, `${JSON.stringify(good)}\r\n\r\n   \n${JSON.stringify(b)}\n`);
    const tasks = loadTasks(f);
    expect(tasks.map((t) => t.id)).toEqual(["psf__requests-1", "b"]);
    expect(tasks[1]?.git_dir).toBe("/abs/git");
  });

  it("takes a relative git_dir relative to the tasks file", () => {
    const f = file([{ ...good, git_dir: "mirrors/requests" }]);
    expect(loadTasks(f)[0]?.git_dir).toBe(join(f, "..", "mirrors/requests"));
  });

  it.each([
    ["not json", /tasks\.jsonl:2: not valid JSON/],
    [{ ...good, commit: undefined }, /tasks\.jsonl:2: commit: /],
    [{ ...good, commit: "xyz" }, /tasks\.jsonl:2: commit: must be a hex commit id/],
    [{ ...good, repo: "requests" }, /tasks\.jsonl:2: repo: must be owner\/name/],
    [{ ...good, gold: [] }, /tasks\.jsonl:2: gold: must name at least one file/],
    [{ ...good, gold: ["/abs/x.py"] }, /tasks\.jsonl:2: gold\.0: must be a repo-relative POSIX path/],
    [{ ...good, query: 3 }, /tasks\.jsonl:2: query: /],
    [[1, 2], /tasks\.jsonl:2: line: /],
    [good, /tasks\.jsonl:2: id: "psf__requests-1" repeats the task on line 1/],
  ])("rejects %j on line 2 with its line and field", (bad, message) => {
    const err = failure(file([good, bad as object]));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("BAD_INPUT");
    expect(err.message).toMatch(message);
  });

  it("says which file it cannot read", () => {
    const err = failure(join(tmpDir(), "missing.jsonl"));
    expect(err.code).toBe("NOT_FOUND");
    expect(err.message).toMatch(/missing\.jsonl/);
  });

  it("accepts an empty query (the run reports it)", () => {
    expect(loadTasks(file([{ ...good, query: "" }]))[0]?.query).toBe("");
  });
});

describe("taskView", () => {
  it("is a fresh frozen object without gold", () => {
    const task: Task = { ...good, git_dir: "/g" };
    const view = taskView(task);
    expect(view).toEqual({ id: good.id, repo: good.repo, commit: good.commit, query: good.query, git_dir: "/g" });
    expect("gold" in view).toBe(false);
    expect(Object.isFrozen(view)).toBe(true);
  });
});
