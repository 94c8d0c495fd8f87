// Which sentences of the agent's prose become units: only a whole statement (not a heading, a list's lead-in, a
// cut line or a fragment), stated as fact (not narration of the next step, not a guess), with a claim (a cause, a
// finding or a choice), grounded in the session (it names a file, identifier or value the session's tools, edits
// or the person's words show). Anything else is left in the archive, where search still finds it.
/** A sentence shorter than this says too little alone; a longer one is a paragraph the segmenter failed to split. */
const MIN_CHARS = 40;
const MAX_CHARS = 420;

/** Narration of what the agent is about to do, or chat around it: the edit itself is the unit. */
const NARRATION =
  /^(?:(?:now|ok(?:ay)?|so|first|next|then|great|perfect|alright|good|finally|also|and)[,!]?\s+)*(?:let me|let[’']?s|let us|I\b|we need|we should|we can|we'?ll|looking at|it seems|it looks|oops|yes|no|hmm|here'?s|here is|this will|this should|now that|to (?:fix|resolve|address|ensure|confirm|verify|check|test)|you\b|your\b|if you|once|this\b(?!\s+(?:error|exception|warning) (?:occurs|happens|arises|is (?:raised|thrown)) (?:when|because|if)\b)|that\b|it\b|these\b|those\b|the output|the result|the (?:code|fix|change|changes|app|application) (?:now|should|will)|after (?:applying|these|this|making|running)|great|perfect|excellent|done|all set|summary)\b/i;
/** A guess or a prediction is not a fact. */
const HEDGE =
  /\b(?:likely|unlikely|probably|might|may|maybe|perhaps|possibly|could|would be|if you (?:prefer|want|like)|I think|I believe|I suspect|seems?|appears? to|should (?:now|be|no longer|stop|work|fix|resolve|help)|hopefully|presumably|suggests?|I should|we should|I would|need to|somewhere|something|right now|at the moment|for now)\b/i;
/** A heading, a bullet's bold label, a table row, a quote, a code comment or an emoji-led line. */
const FRAGMENT_OPENING =
  /^(?:#|\*\*[^*]+\*\*\s*[:—–-]|\||>|\/\/|\(|\[[^\]]*\]\s*$|[\p{Extended_Pictographic}\u2700-\u27bf])/u;
/**
 * A list item led by its label, its subject left out ("Status: Uses `barred` …", "Better Country Mapping: Separate
 * …"): a fragment. A label followed by a clause with its subject ("Root cause: the cookie was set without SameSite",
 * "The fix: The parser takes the zone") is a whole statement.
 */
const LABELLED =
  /^(?:\*\*)?[\p{Lu}][\p{L}\d/&'-]*(?:\s+[\p{L}\d/&'-]+){0,3}(?:\*\*)?\s*:\s+(?!(?:The|A|An|This|That|These|Those|It|Its|Our|We|They|Each|Every|No|All|Any)\b)[\p{Lu}`]/u;
/** An opening that points back to the sentence before ("Likewise, switch to …"): what it says is said there. */
const ANAPHORIC =
  /^(?:likewise|similarly|same (?:for|here|with|as)|as (?:above|before|mentioned)|otherwise|in addition|additionally)\b/i;
/** An abbreviation the sentence ends on, so was cut after it: "e.g.", "i.e.", "no.", "Gen.", "vs.", an initial. */
const ABBREVIATION_END =
  /(?:^|[\s("'“‘])(?:e\.g|i\.e|cf|vs|no|nr|gen|approx|incl|ca|fig|ref|mr|mrs|dr|prof|st|[A-Z])\.$/i;
/** A summary list's item with its subject left out ("Updated `X` to use …", "`f()`: now …"): a fragment. */
const SUBJECTLESS =
  /^(?:`[^`]+`\s*[:—–-]|(?:now|updated?|added?|fixed|removed?|changed?|uses|used|proposed|created?|replaced|moved|refactored|implemented|made|ensured?|kept|switched|converted|renamed|simplified|improved)\b)/i;
/** What makes a sentence carry knowledge: a cause, a finding, a constraint of the code, or a choice made. */
const CLAIM =
  /\b(?:because|caused by|due to|the (?:root )?cause|the (?:issue|problem|error|bug|failure) (?:is|was) that|turns out|which means|this means|so that|requires?|only (?:works|accepts|supports)|(?:does|do|did)(?:n'?t| not) (?:support|accept|exist|contain|have|allow|work)|is not (?:supported|available|allowed)|instead of|rather than|decided|chose|opted|going with|switched to|replaced|in favou?r of|over the)\b/i;
/** A finding about why something happens (a learning), as against a choice made (a decision). */
export const CAUSE =
  /\b(?:because|caused by|due to|the (?:root )?cause|the (?:issue|problem|error|bug|failure) (?:is|was) that|turns out|which means|this means|requires?|only (?:works|accepts|supports)|(?:does|do|did)(?:n'?t| not) (?:support|accept|exist|contain|have|allow|work)|is not (?:supported|available|allowed))\b/i;
/** Anchors that tie a sentence to the session: code spans, paths, identifiers in code style, quoted values. */
const CODE_SPAN = /`([^`]{2,80})`/g;
const PATH_LIKE =
  /(?:[\w.@-]+\/)+[\w.@-]+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|rs|go|java|rb|c|h|cpp|cs|md|json|toml|ya?ml|al|sql|css|html)\b/g;
const IDENT_LIKE = /\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z]+_[a-z_]+\w*)\b/g;
const QUOTED = /"([^"]{3,60})"|'([^'\s][^']{2,58}[^'\s])'/g;

/** Cleans a segment for use as a unit: a list bullet dropped, markdown links reduced to their text. */
export function cleanProse(text: string): string {
  return text
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
    .replace(/\[([^\]]+)\]\([^)]+\)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** A choice between means: what a decision says. */
export const CHOICE =
  /\b(?:instead of|rather than|decided|chose|opted|going with|switch(?:ed)? to|in favou?r of|I[’']?ll use|we[’']?ll use)\b/i;

/** Whether a sentence is whole: not a heading, a list's lead-in, a question, a cut line or a fragment of one. */
export function wholeSentence(t: string): boolean {
  if (t.length < MIN_CHARS - 10 || t.length > MAX_CHARS) return false;
  if (/…|\.\.\.$|[:;,(\-–—]$/.test(t)) return false;
  if (t.endsWith("?")) return false;
  if (FRAGMENT_OPENING.test(t) || LABELLED.test(t) || ANAPHORIC.test(t)) return false;
  // Cut after an abbreviation ("… the Record "Gen.", "… e.g."): the sentence went on.
  if (ABBREVIATION_END.test(t)) return false;
  // A sentence starts with a capital, a digit, a quote or a code span; a lower-case start was cut from another.
  if (!/^[\p{Lu}\d`"']/u.test(t)) return false;
  // Unbalanced code spans or brackets: the sentence was split inside them.
  if ((t.match(/`/g) ?? []).length % 2 === 1) return false;
  if ((t.match(/\(/g) ?? []).length !== (t.match(/\)/g) ?? []).length) return false;
  return !HEDGE.test(t);
}

/** Whether a sentence reads as a whole statement of fact with a claim (see the module header). */
export function wholeClaim(t: string): boolean {
  if (t.length < MIN_CHARS || !wholeSentence(t)) return false;
  if (NARRATION.test(t) || SUBJECTLESS.test(t)) return false;
  return CLAIM.test(t);
}

/**
 * Whether the agent's sentence states a choice it then carried out (the caller knows an edit followed): said in
 * its own words ("Let's run the script with the system Python instead of the virtual environment"), whole, or
 * recommended as an imperative that leads into its example ("Use .NET Configuration instead of direct environment
 * variable access:").
 */
export function carriedChoice(t: string): boolean {
  if (RECOMMENDED.test(t) && wholeSentence(t.slice(0, -1))) return true;
  if (!wholeSentence(t) || !CHOICE.test(t)) return false;
  // The agent's plan in its own words ("Let's …", "I'll …"), or a statement with a subject, ended as a sentence.
  if (PLAN.test(t)) return !OWN_TOOLING.test(t);
  return /[.!]$/.test(t) && !NARRATION.test(t) && !SUBJECTLESS.test(t);
}

/** A recommendation of one means over another, as an imperative leading into its example: "Use X instead of Y:". */
const RECOMMENDED =
  /^(?:use|prefer|switch to|replace|read|call|store|keep|move|put)\b[^:]{4,200}\b(?:instead of|rather than|over)\b[^:]{3,120}:$/i;

/** The agent's choice of its own means (which tool, shell or browser to drive), not a choice about the project. */
const OWN_TOOLING =
  /\b(?:(?:MCP|CLI|playwright|browser|terminal|shell|bash|grep|search|edit|read)\s+tools?|tools? (?:call|instead)|the CLI|command line)\b/i;

/** The opening of the agent's plan for the next step. */
const PLAN =
  /^(?:(?:now|so|first|next|then|ok(?:ay)?)[,]?\s+)?(?:let me|let[’']?s|I[’']?ll|I will|we[’']?ll|we will|I[’']?m going to)\s+(?=\w)/i;

/**
 * A choice as a unit states it: a plan or a recommendation the agent then carried out, quoted in its words and said
 * to be done ("Carried out: "Let's run the script with …""), so it reads as a decision made, not a step to come.
 */
export function asDecision(t: string): string {
  if (PLAN.test(t)) return `Carried out: "${t}"`;
  return RECOMMENDED.test(t) ? `Advised and carried out: "${t}"` : t;
}

/** The names a sentence cites: code spans, paths, code-style identifiers and quoted values. */
export function anchorsOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(CODE_SPAN)) out.add(m[1]!.replace(/\(\)$/, ""));
  for (const m of text.match(PATH_LIKE) ?? []) out.add(m);
  for (const m of text.match(IDENT_LIKE) ?? []) out.add(m);
  for (const m of text.matchAll(QUOTED)) out.add((m[1] ?? m[2])!);
  return [...out].map((a) => a.trim()).filter((a) => a.length >= 3);
}

/**
 * Whether a sentence is grounded in what the session shows beyond the agent's own prose: one of its anchors
 * appears in `evidence` (the tools' calls and outputs and the person's words, lower-cased).
 */
export function grounded(text: string, evidence: string): boolean {
  return anchorsOf(text).some((a) => evidence.includes(a.toLowerCase()));
}
