// Locates a compiled worker module next to the caller (tests running from src/ use the build in dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { AppError } from "./errors.js";

export function siblingWorkerFile(callerUrl: string, name: string): string {
  const here = fileURLToPath(callerUrl);
  const dir = here.slice(0, here.lastIndexOf("/"));
  const js = here.endsWith(".ts") ? `${dir.replace(/\/src(\/[^/]+)$/, "/dist/src$1")}/${name}.js` : `${dir}/${name}.js`;
  if (!existsSync(js)) throw new AppError("INTERNAL", `worker module not found at ${js}; run \`npm run build\``);
  return js;
}

/** Node flags a worker may inherit: `--input-type` (from `node -e`) is refused by worker threads. */
export function workerExecArgv(): string[] {
  return process.execArgv.filter((a) => !a.startsWith("--input-type"));
}
