// Fence-aware reading of markdown transcripts: headers inside code blocks are content, not structure.

const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;

/** For each line, whether it belongs to a fenced code block (fence lines included). */
export function fenceMask(lines: string[]): boolean[] {
  const mask: boolean[] = new Array<boolean>(lines.length).fill(false);
  let open: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = FENCE.exec(lines[i]!);
    if (open) {
      mask[i] = true;
      if (m && m[1]![0] === open[0] && m[1]!.length >= open.length && !m[2]!.trim()) open = undefined;
    } else if (m) {
      mask[i] = true;
      open = m[1]!;
    }
  }
  return mask;
}

export interface Fenced {
  lang: string;
  body: string;
  /** Line index of the opening fence within the scanned text. */
  start: number;
  end: number;
}

/** The fenced code blocks of `text`, in order. */
export function fencedBlocks(text: string): Fenced[] {
  const lines = text.split("\n");
  const out: Fenced[] = [];
  let open: { fence: string; lang: string; start: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = FENCE.exec(lines[i]!);
    if (open) {
      if (m && m[1]![0] === open.fence[0] && m[1]!.length >= open.fence.length && !m[2]!.trim()) {
        out.push({ lang: open.lang, body: lines.slice(open.start + 1, i).join("\n"), start: open.start, end: i });
        open = undefined;
      }
    } else if (m) open = { fence: m[1]!, lang: m[2]!.trim().split(/\s+/)[0] ?? "", start: i };
  }
  if (open)
    out.push({ lang: open.lang, body: lines.slice(open.start + 1).join("\n"), start: open.start, end: lines.length });
  return out;
}

/** Splits text into sections at header lines (outside fences) that `isHeader` accepts. */
export function splitAtHeaders<H>(
  text: string,
  isHeader: (line: string) => H | undefined,
): { header: H | undefined; headerLine: string; body: string; line: number }[] {
  const lines = text.split("\n");
  const out: { header: H | undefined; headerLine: string; body: string; line: number }[] = [];
  let cur: { header: H | undefined; headerLine: string; lines: string[]; line: number } = {
    header: undefined,
    headerLine: "",
    lines: [],
    line: 0,
  };
  let open: string | undefined;
  let rule = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = FENCE.exec(line);
    let h: H | undefined;
    if (!open || rule) {
      // A header after a `---` rule starts a turn even when a message left a fence open: the export writes the
      // rule between turns, so one unbalanced fence cannot swallow the turns after it.
      h = isHeader(line);
      if (h !== undefined) open = undefined;
    }
    if (h === undefined) {
      if (open) {
        if (m && m[1]![0] === open[0] && m[1]!.length >= open.length && !m[2]!.trim()) open = undefined;
      } else if (m) open = m[1]!;
    }
    if (line.trim()) rule = /^\s*-{3,}\s*$/.test(line);
    if (h !== undefined) {
      out.push({ header: cur.header, headerLine: cur.headerLine, body: cur.lines.join("\n"), line: cur.line });
      cur = { header: h, headerLine: line, lines: [], line: i };
    } else cur.lines.push(line);
  }
  out.push({ header: cur.header, headerLine: cur.headerLine, body: cur.lines.join("\n"), line: cur.line });
  return out;
}
