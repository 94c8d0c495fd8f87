// Tool `record_outcome`: which cards helped, which file was finally edited; feeds later rankings.
import { z } from "zod";

import { OutcomeInput } from "../../cards/input.js";
import { defineTool } from "../tool.js";

export const Output = z.object({
  recorded: z.number(),
  /** A few of the ids no served card has; unknownCount counts them all. */
  unknown: z.array(z.string()),
  unknownCount: z.number(),
});

export const recordOutcomeTool = defineTool({
  name: "record_outcome",
  title: "Report what helped",
  description:
    'After acting on memory cards, report the ids of cards that helped (and any that did not) and the files you finally edited. Later rankings in this project use it. Example: {"helped": ["c51c21dcc8a"], "edited_files": ["src/geometry.py"]}.',
  input: OutcomeInput,
  output: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  load: async () => (await import("./record-outcome.run.js")).run,
});
