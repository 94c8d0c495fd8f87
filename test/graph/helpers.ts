// Opens a fresh app over a directory, as the CLI and server do.
import { join } from "node:path";

import { type App, createApp } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { resolveProjectRoot } from "../../src/project/root.js";
import { tmpDir } from "../helpers/tmp.js";

export function openTestApp(root: string, db = join(tmpDir(), "graph.db")): App {
  const config = resolveConfig({ root, db, embedder: "offline" }, { MEMCARDS_HOME: tmpDir() });
  const location = resolveProjectRoot({ explicit: root, cwd: root, userDir: config.userDir });
  return createApp(config, location, silentLogger);
}
