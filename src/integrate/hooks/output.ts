// What a hook prints for the model: a summary's sections in order of what a fresh context needs first, cut to the
// hook output limit.
import { MAX_HOOK_OUTPUT } from "./input.js";

/** Cuts `text` at a line to at most `max` characters, saying where the full summary is. */
export function cap(text: string, max = MAX_HOOK_OUTPUT): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 60);
  return `${cut.slice(0, cut.lastIndexOf("\n"))}\n… (cut; the full summary: get_summary)`;
}

const BRIEF_ORDER = [
  "Next Steps",
  "User Constraints",
  "Current State",
  "Blockers / Open Questions",
  "Failures",
  "Files Modified",
  "Decisions Made",
  "Completed",
  "Session Intent",
  "Metrics",
];

/** Reorders a summary's sections so the most important come first (they survive the cap). */
export function briefOf(markdown: string): string {
  const parts = markdown.split(/\n(?=## )/);
  const title = (p: string) => /^## (.+)$/m.exec(p)?.[1] ?? "";
  const rank = (p: string) => {
    const i = BRIEF_ORDER.indexOf(title(p));
    return i < 0 ? BRIEF_ORDER.length : i;
  };
  return parts
    .filter((p) => !/_None recorded\._\s*$/.test(p.trim()))
    .sort((a, b) => rank(a) - rank(b))
    .join("\n\n");
}
