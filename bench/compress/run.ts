// A compression as the evaluations score it: the result with its draft, pre-insertion context and all turns.
import type { Turn } from "../../src/conversation/schema.js";
import { type CompressDeps, type CompressResult, compressTraced } from "../../src/session/compress.js";
import { type CompressInput } from "../../src/transcript/compression/compress.js";

export type EvalCompression = CompressResult & {
  /** The summary before probe-failed facts were re-inserted (what the summarizer alone produced). */
  draft: string;
  /** The draft followed by the kept recent messages. */
  draft_context: string;
  /** Every turn read. */
  all_turns: Turn[];
};

/** Runs one compression (compress_context's own) and keeps what the evaluations score beside the result. */
export function compressForEval(deps: CompressDeps, input: CompressInput): EvalCompression {
  const { result, trace } = compressTraced(deps, input);
  return { ...result, draft: trace.draft, draft_context: trace.draft_context, all_turns: trace.turns };
}
