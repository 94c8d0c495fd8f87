// The person's words in hostile or unusual shapes: made-up tags and long lines are read to the end (a rescanning
// pass would not return within the test's hang guard), and an instruction is never dropped because it mentions a
// tag name or starts like a build log.
import { describe, expect, it } from "vitest";

import type { Turn } from "../../src/conversation/schema.js";
import { failures } from "../../src/transcript/events/failures.js";
import { prose } from "../../src/transcript/extraction/extract.js";
import { humanPart } from "../../src/transcript/extraction/human.js";

const user = (text: string, i = 0): Turn => ({
  id: `t${i}`,
  index: i,
  role: "user",
  kind: "message",
  text,
  tool_calls: [],
  tool_results: [],
});

describe("the person's words", () => {
  it("keeps a sentence that names a tag without closing it", () => {
    expect(humanPart("The <skill> badge overlaps the avatar. Never change the avatar size.").text).toContain(
      "Never change the avatar size.",
    );
    expect(humanPart("<rules> component isn't rendering; always keep the old CSS class names").text).toContain(
      "always keep the old CSS class names",
    );
  });

  it("still removes complete injected blocks, in any case and spelling", () => {
    const r = humanPart("<System_Reminder>be brief</system_reminder>Fix the login bug.");
    expect(r.text).toBe("Fix the login bug.");
    expect(humanPart("<system-reminder>only this</system-reminder>").injected).toBe("system");
  });

  it("keeps a pasted build log's following instruction", () => {
    const r = humanPart("[ERROR] Failed to execute goal compile\n[ERROR] -> [Help 1]\nDon't upgrade the Java version.");
    expect(r.injected).toBeUndefined();
    expect(r.text).toContain("Don't upgrade the Java version.");
    expect(humanPart("[ERROR] You did not use a tool in your previous response!").injected).toBe("client-error");
  });

  it("reads made-up tags and long lines to the end", () => {
    for (const text of ["<rules ".repeat(50_000), "<a>".repeat(100_000), "a.".repeat(100_000)]) {
      expect(humanPart(text).text.length, text.slice(0, 10)).toBeGreaterThan(0);
      expect(typeof prose(text)).toBe("string");
      expect(() => failures([user(text)], undefined)).not.toThrow();
    }
    const many = Array.from({ length: 30_000 }, (_, i) => `<t${i.toString(36).replace(/\d/g, "x")}>`).join("");
    expect(prose(many).length).toBeGreaterThan(0);
  });

  it("prose drops closed tag blocks and keeps unclosed tags as text", () => {
    expect(prose("keep <note>drop this</note> this")).toBe("keep   this");
    expect(prose("a <b> c")).toBe("a <b> c");
  });
});
