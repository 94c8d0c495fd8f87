// Card token counts taken line by line through the memo equal a count of the whole text, whatever its lines hold.
import { describe, expect, it } from "vitest";

import { cardTokens } from "../../src/scoring/cards.js";
import { countTokens } from "../../src/text/tokens.js";

describe("card token counts through the line memo", () => {
  it("equal the count of the whole text", () => {
    const long = "x".repeat(700);
    const texts = [
      "### 1. file: a/b.py (utility 0.42, id c0123456789)\n- when: Before editing code\n- evidence: a/b.py ranks #1 (bm25 #1, symbols #3)\n- do: Open a/b.py\n- if ignored: The fix may land in the wrong file.",
      "### rule: docs/RULES.md\n- evidence: docs/RULES.md: line one\n  indented continuation\n\n- do: Follow it…\n- if ignored: ¿qué? 東京 — “quoted”)\n",
      `### symbol: x\n- evidence: \`${long}\`\n- do: Edit ${long.slice(0, 300)} now\n-\n\n\n- if ignored: x.\n`,
      "a\nb\r\nc\n d\n\te\n'sf\n123456\n!!!\n",
      "### symbol: sympy/core/basic.py:10-20 ⚠ stale (utility 12.345, id c0123456789)\n- when: x",
      "### rule: RULES.md (utility 0.42, id c0123456789)",
      "### x (utility 0.42, id c01)\n### (utility 1.00, id c02)\n###  (utility 1.00, id (c03))\n",
    ];
    for (const t of texts) {
      expect(cardTokens(t), t.slice(0, 40)).toBe(countTokens(t));
      expect(cardTokens(t)).toBe(countTokens(t)); // from the memo
    }
  });
});
