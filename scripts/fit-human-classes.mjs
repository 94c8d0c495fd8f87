// Fits the human-turn classifier on the gold files' labelled turns and writes its weights
// (src/transcript/extraction/human-weights.json), printing the cross-validated report. The procedure, in short (in full in the
// header of bench/summary/fit-human.ts): multinomial logistic regression over a turn's words, word pairs, structure
// and sentence cues, fitted on the development sessions only; leave-one-session-out cross-validation; a message is
// a standing instruction at the lowest threshold whose cross-validated precision is ≥ 0.9 (classing at least 5
// turns; else the most precise); a binary model over sentences picks the rule sentences inside it. The validation
// sessions (split.json) are scored once, by the final model. TURN_L2 overrides the turn model's L2 penalty (0.001).
// Usage (after `node scripts/build.mjs`):
//   node scripts/fit-human-classes.mjs <gold dir> <transcripts dir> [report.md]
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { fitHumanClassifier, renderFitReport } from "../dist/bench/summary/fit-human.js";
import { fitRuleSentences, renderRuleReport } from "../dist/bench/summary/fit-rules.js";
import { fitRuleLabels, renderRuleLabelReport } from "../dist/bench/summary/rule-labels.js";

const [gold, transcripts, out] = process.argv.slice(2);
if (!gold || !transcripts) throw new Error("usage: fit-human-classes.mjs <gold dir> <transcripts dir> [report.md]");
const turnL2 = process.env.TURN_L2 ? Number(process.env.TURN_L2) : undefined;
const r = fitHumanClassifier({ gold, transcripts, turnL2, onStep: (s) => process.stderr.write(`${s}\n`) });
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
writeFileSync(join(root, "src", "transcript", "extraction", "human-weights.json"), `${JSON.stringify(r.weights)}\n`);
// The sentence-level measure (bench/summary/fit-rules.ts): a model of rule sentences over every person's message
// (cue, shape, structure, place and out-of-fold turn-class features), cross-validated the same way, its threshold
// chosen on that cross-validation, beside the sentences User Constraints keeps, on the same labels. It writes no
// weights: on the validation sessions it does not beat what User Constraints keeps (bench/summary/human-classes-fit.md).
const rules = fitRuleSentences({
  gold,
  transcripts,
  turnProbs: r.turnProbs,
  onStep: (s) => process.stderr.write(`${s}\n`),
});
// The same model on sentence labels made for it (bench/summary/rule-labels.ts), when the fixture sits beside the gold.
const labelsPath = join(gold, "..", "rule-sentences", "labels.jsonl");
const byLabels = existsSync(labelsPath)
  ? renderRuleLabelReport(
      fitRuleLabels({
        labels: labelsPath,
        transcripts,
        turnProbs: r.turnProbs,
        onStep: (s) => process.stderr.write(`${s}\n`),
      }),
    )
  : "";
const md = [renderFitReport(r), renderRuleReport(rules), byLabels].filter(Boolean).join("\n\n");
if (out) writeFileSync(out, `${md}\n`);
process.stdout.write(`${md}\n`);
