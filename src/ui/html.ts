// Escaped HTML by construction: `html` templates escape every interpolated value unless it is already `Html`.

/** Markup that is already safe to emit as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]!);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false || v === true) return "";
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return (v as readonly Part[]).map(render).join("");
  return escapeHtml(String(v as string | number));
}

/** A template whose values are escaped (arrays joined, null/undefined/booleans dropped). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** Marks trusted markup (built here, never from stored text). */
export const raw = (s: string): Html => new Html(s);

/** A query string from defined values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : "";
}

/** Short local date-time of an ISO stamp. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  return iso.replace("T", " ").slice(0, 16);
}

/** Renders the small markdown subset summaries use: headings, lists, code spans and fences, paragraphs. */
export function markdown(md: string): Html {
  const out: string[] = [];
  let list = false;
  let fence = false;
  const inline = (s: string) =>
    escapeHtml(s)
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  const closeList = () => {
    if (list) out.push("</ul>");
    list = false;
  };
  for (const line of md.split("\n")) {
    if (line.startsWith("```")) {
      closeList();
      out.push(fence ? "</code></pre>" : "<pre><code>");
      fence = !fence;
      continue;
    }
    if (fence) {
      out.push(`${escapeHtml(line)}\n`);
      continue;
    }
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    const li = /^\s*[-*]\s+(.*)$/.exec(line);
    if (h) {
      closeList();
      const level = Math.min(6, h[1]!.length + 2);
      out.push(`<h${level}>${inline(h[2]!)}</h${level}>`);
    } else if (li) {
      if (!list) out.push("<ul>");
      list = true;
      out.push(`<li>${inline(li[1]!)}</li>`);
    } else if (line.trim()) {
      closeList();
      out.push(`<p>${inline(line)}</p>`);
    } else closeList();
  }
  closeList();
  if (fence) out.push("</code></pre>");
  return new Html(out.join(""));
}

/**
 * A file path as a person scans it: relative to the project root when it lies inside, and when still longer than
 * `max` characters its head replaced by an ellipsis (the file name stays); the whole path goes in the title.
 */
export function shortPath(path: string, root: string, max = 60): { shown: string; full: string } {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const rel = path.startsWith(prefix) ? path.slice(prefix.length) : path;
  if (rel.length <= max) return { shown: rel, full: path };
  const tail = rel.slice(rel.length - (max - 1));
  const slash = tail.indexOf("/");
  return { shown: `…${slash > 0 && slash < tail.length - 8 ? tail.slice(slash) : tail}`, full: path };
}
