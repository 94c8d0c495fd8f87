// `memcards compress`, `memcards distill` and `memcards summary`: anchored summaries of transcripts.
import { resolve as resolvePath } from "node:path";

import { type Command, Option } from "commander";

import { configFrom, int, print, withApp } from "./shared.js";

interface CompressFlags {
  session?: string;
  budget?: number;
  focus?: string;
  keep: number;
  json?: boolean;
}

export function registerCompress(program: Command): void {
  program
    .command("compress [transcript]")
    .description(
      "compress a conversation transcript into an anchored summary (default: the newest Claude Code transcript of the project)",
    )
    .option("--session <id>", "session to merge into (default: the transcript's own id)")
    .option("--budget <tokens>", "target summary size in tokens", int)
    .option("--focus <text>", "what to keep first, like /compact <focus>")
    .option("--keep <n>", "recent messages kept verbatim", int, 5)
    .option("--json", "print {summary: {markdown, sections}, stats}")
    .action(async (transcript: string | undefined, opts: CompressFlags, cmd: Command) => {
      const { compressContext, resumeDistillation } = await import("../session/compress.js");
      const { renderCompressFooter } = await import("../session/report.js");
      await withApp(configFrom(cmd), (app) => {
        // What a killed run left queued is distilled first, so nothing waits for a server to start.
        resumeDistillation(app.scope);
        const r = compressContext(app.scope, {
          ...(transcript ? { transcriptPath: resolvePath(transcript) } : {}),
          ...(opts.session ? { sessionId: opts.session } : {}),
          ...(opts.budget !== undefined ? { budgetTokens: opts.budget } : {}),
          ...(opts.focus ? { focus: opts.focus } : {}),
          keepRecent: opts.keep,
        });
        const { session_id, source, summary, stats, notes } = r;
        print(opts.json, { session_id, source, summary, stats, notes }, `${r.markdown}\n\n${renderCompressFooter(r)}`);
      });
    });

  program
    .command("distill [transcript]")
    .description(
      "distil a transcript into typed memory units (it is compressed too, so the next compression merges); what the SessionEnd hook runs",
    )
    .option("--session <id>", "session to merge into (default: the transcript's own id)")
    .option("--json", "print {session_id, memories, stats}")
    .addOption(
      new Option(
        "--confine",
        "read the transcript only inside the project and the agents' transcript folders (the SessionEnd hook)",
      ).hideHelp(),
    )
    .action(
      async (
        transcript: string | undefined,
        opts: { session?: string; json?: boolean; confine?: boolean },
        cmd: Command,
      ) => {
        const { compressContext, resumeDistillation } = await import("../session/compress.js");
        const { renderDistilled } = await import("../session/report.js");
        const { confinedReader } = await import("../transcript/formats/source.js");
        await withApp(configFrom(cmd), (app) => {
          // What a killed run left queued is distilled first, so nothing waits for a server to start.
          resumeDistillation(app.scope);
          const scope = { root: app.location.root, roots: [], home: app.config.home };
          const deps = opts.confine ? { ...app.scope, read: confinedReader(scope) } : app.scope;
          const r = compressContext(deps, {
            ...(transcript ? { transcriptPath: resolvePath(transcript) } : {}),
            ...(opts.session ? { sessionId: opts.session } : {}),
            // The session has ended: nothing is kept back as recent messages.
            keepRecent: 0,
          });
          print(
            opts.json,
            { session_id: r.session_id, memories: r.memories ?? null, stats: r.stats },
            renderDistilled(r),
          );
        });
      },
    );
}

export function registerSummary(program: Command): void {
  program
    .command("summary")
    .description("print the latest stored summary of a session (default: the most recently compressed one)")
    .option("--session <id>", "session id")
    .option("--full", "every stored item, not just what fit the budget")
    .option("--json", "print JSON")
    .action(async (opts: { session?: string; full?: boolean; json?: boolean }, cmd: Command) => {
      const { getSummary } = await import("../transcript/compression/summaries.js");
      const { renderStoredSummary } = await import("../transcript/rendering/report.js");
      await withApp(configFrom(cmd), (app) => {
        const s = getSummary(app.db, app.project.id, opts.session);
        print(opts.json, s, renderStoredSummary(s, opts.full ?? false));
      });
    });
}
