// Worker thread for `workerPreparer`: reads, parses and tokenizes files with its own parser.
import { parentPort } from "node:worker_threads";

import type { LanguageId } from "../repo/languages.js";
import { createParser } from "../repo/parse.js";
import { prepareFiles, type PrepareInput } from "./prepare.js";

const port = parentPort;
if (!port) throw new Error("prepare-worker must run in a worker thread");
const parser = createParser();

port.on(
  "message",
  (
    msg:
      { id: number; type: "preload"; languages: LanguageId[] } | { id: number; type: "prepare"; files: PrepareInput[] },
  ) => {
    const run = msg.type === "preload" ? parser.preload(msg.languages).then(() => []) : prepareFiles(parser, msg.files);
    run.then(
      (result) => port.postMessage({ id: msg.id, ok: true, result }),
      (err: unknown) => port.postMessage({ id: msg.id, ok: false, message: (err as Error).message }),
    );
  },
);
