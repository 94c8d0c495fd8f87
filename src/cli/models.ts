// `memcards models pull` (cache an embedding model) and `memcards reembed` (switch a project's embedder).
import type { Command } from "commander";

import { DEFAULT_MODEL } from "../embeddings/transformers.js";
import { AppError } from "../errors.js";
import { configFrom, loggerFor, print, withApp } from "./shared.js";

export function registerModels(program: Command): void {
  const models = program.command("models").description("manage local embedding models");
  models
    .command("pull [model]")
    .description(`download a sentence-embedding model into the local cache (default ${DEFAULT_MODEL})`)
    .action(async (model: string | undefined, _opts: unknown, cmd: Command) => {
      const { pullModel } = await import("../embeddings/pull.js");
      const config = configFrom(cmd);
      const name = model ?? DEFAULT_MODEL;
      await pullModel({ model: name, cacheDir: config.modelsDir, logger: loggerFor(config) });
      console.log(
        `pulled ${name} into ${config.modelsDir}; switch a project to it with: memcards reembed --model ${name}`,
      );
    });

  program
    .command("reembed")
    .description("switch this project's database to another embedder and re-embed everything stored")
    .option("--model <id>", "a cached model (see `memcards models pull`)")
    .option("--offline", "the built-in offline embedder")
    .option("--json", "print JSON")
    .action(async (opts: { model?: string; offline?: boolean; json?: boolean }, cmd: Command) => {
      const { embedderFor } = await import("../embeddings/select.js");
      const { reembed } = await import("../vectors/reembed.js");
      if (Boolean(opts.model) === Boolean(opts.offline)) {
        throw new AppError("BAD_INPUT", "pass exactly one of --model <id> or --offline");
      }
      await withApp(configFrom(cmd), async (app) => {
        const target = opts.offline ? { offline: true as const } : { model: opts.model ?? DEFAULT_MODEL };
        const embedder = embedderFor(target, app.config.modelsDir, app.logger);
        await app.useEmbedder(embedder);
        const result = await reembed(app.db, embedder);
        const was = result.from ?? "unbound";
        print(opts.json, result, `re-embedded ${result.items} items with ${result.to} (was ${was}) in ${result.ms} ms`);
      });
    });
}
