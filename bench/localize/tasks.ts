// Localization tasks: the JSONL format of the dev sets, validated line by line.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";

import { z } from "zod";

import { AppError } from "../../src/errors.js";

const repoPath = z
  .string()
  .min(1, "must not be empty")
  .refine((p) => !p.startsWith("/") && !p.includes("\\"), "must be a repo-relative POSIX path");

/** One localization task: find `gold` in `repo` at `commit` from `query`. */
export const Task = z.object({
  id: z.string().min(1, "must not be empty"),
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name"),
  commit: z.string().regex(/^[0-9a-fA-F]{7,40}$/, "must be a hex commit id (7 to 40 digits)"),
  query: z.string(),
  gold: z.array(repoPath).min(1, "must name at least one file"),
  git_dir: z.string().min(1).optional(),
  /** Functions, methods or classes the real fix changes, as `path::Class.method` (scored by sym_acc@k). */
  gold_symbols: z.array(z.string()).optional(),
});
export type Task = z.infer<typeof Task>;

/** What ranking code may see of a task: everything but `gold` and `gold_symbols`. */
export const TaskView = Task.omit({ gold: true, gold_symbols: true });
export type TaskView = z.infer<typeof TaskView>;

/** A fresh object holding only the fields of the view, so `gold` cannot ride along at run time. */
export function taskView(task: Task): TaskView {
  const view: TaskView = { id: task.id, repo: task.repo, commit: task.commit, query: task.query };
  if (task.git_dir !== undefined) view.git_dir = task.git_dir;
  return Object.freeze(view);
}

/**
 * Reads a JSONL task file: one task a line, blank lines skipped. A relative `git_dir` is taken
 * relative to the file. Throws BAD_INPUT naming the line and field of the first bad line.
 */
export function loadTasks(file: string): Task[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new AppError("NOT_FOUND", `cannot read the tasks file ${file}: ${(err as Error).message}`, { cause: err });
  }
  const tasks: Task[] = [];
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new AppError("BAD_INPUT", `${where}: not valid JSON (${(err as Error).message})`, { cause: err });
    }
    const parsed = Task.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join(".") : "line";
      throw new AppError("BAD_INPUT", `${where}: ${field}: ${issue?.message ?? "invalid task"}`);
    }
    const task = parsed.data;
    const seen = lineOf.get(task.id);
    if (seen !== undefined) {
      throw new AppError(
        "BAD_INPUT",
        `${where}: id: "${task.id}" repeats the task on line ${seen}; ids must be unique`,
      );
    }
    lineOf.set(task.id, i + 1);
    if (task.git_dir !== undefined && !isAbsolute(task.git_dir)) task.git_dir = resolve(dirname(file), task.git_dir);
    tasks.push(task);
  });
  return tasks;
}
