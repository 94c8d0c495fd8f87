// `memcards pause | resume | audit | export | import`: looking after the project's memory as a whole.
import { resolve as resolvePath } from "node:path";

import type { Command } from "commander";

import { count } from "../text/plural.js";
import { configFrom, print, withApp } from "./shared.js";

export function registerMemoryAdmin(program: Command): void {
  program
    .command("pause")
    .description("stop storing anything from conversations for this project (summaries, memory units, raw turns)")
    .action(async (_o: unknown, cmd: Command) => {
      const { setPaused } = await import("../memory/admin.js");
      await withApp(configFrom(cmd), (app) => {
        setPaused(app.db, app.project.id, true);
        console.log(`memory paused for ${app.location.root}; memcards resume to undo`);
      });
    });

  program
    .command("resume")
    .description("store conversations' summaries and memory units again")
    .action(async (_o: unknown, cmd: Command) => {
      const { setPaused } = await import("../memory/admin.js");
      await withApp(configFrom(cmd), (app) => {
        setPaused(app.db, app.project.id, false);
        console.log(`memory resumed for ${app.location.root}`);
      });
    });

  program
    .command("audit")
    .description(
      "memory hygiene: duplicates, stale units (cited code changed), superseded units, conflicts, units without evidence",
    )
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { auditMemory, renderAudit } = await import("../memory/admin.js");
      await withApp(configFrom(cmd), (app) => {
        const a = auditMemory(app.db, app.project.id);
        print(opts.json, a, renderAudit(a));
      });
    });

  program
    .command("export")
    .description("write the project's memory units as JSONL (to stdout, or --out FILE)")
    .option("--out <file>", "write here instead of stdout")
    .option("--all", "include superseded units and units in conflict")
    .action(async (opts: { out?: string; all?: boolean }, cmd: Command) => {
      const { exportMemory } = await import("../memory/admin.js");
      const { writeOwnFile } = await import("../project/files.js");
      await withApp(configFrom(cmd), (app) => {
        const text = exportMemory(app.db, app.project.id, opts.all ?? false);
        if (opts.out) writeOwnFile(opts.out, text ? `${text}\n` : "");
        else if (text) console.log(text);
      });
    });

  program
    .command("import <file>")
    .description("read memory units from a JSONL export (duplicates merge; bad lines are counted)")
    .action(async (file: string, _o: unknown, cmd: Command) => {
      const { importMemory } = await import("../memory/admin.js");
      await withApp(configFrom(cmd), (app) => {
        const r = importMemory(app.db, app.project.id, resolvePath(file));
        console.log(`imported ${r.imported}, merged ${r.merged}, skipped ${count(r.skipped, "line")}`);
      });
    });
}
