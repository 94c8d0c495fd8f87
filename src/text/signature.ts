// The merge key of an error or fact line: lower case, with paths, hex and numbers replaced, so repeats collapse.
/** Normalizes a line to its signature (at most 120 characters). */
export function signature(line: string): string {
  return (
    line
      .toLowerCase()
      // Starts only where a run of path characters starts: inside a run it would rescan the rest each time.
      .replace(/(?<![\w.@/\\-])(?:[a-z]:)?(?:[\w.@-]*[/\\])+[\w.@-]+/g, "<path>")
      .replace(/0x[0-9a-f]+|\b[0-9a-f]{7,}\b/g, "<hex>")
      .replace(/\d+(\.\d+)?/g, "<n>")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 120)
  );
}
