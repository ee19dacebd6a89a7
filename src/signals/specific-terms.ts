/**
 * The specific terms of a text: what an agent copies out of a tool result when it works from it (a path, an
 * identifier, an address, a number), whatever the tool and the format of the result.
 */

/** Text read per message: the head of a very long result holds its names too. */
const MAX_TEXT = 50_000;
/** Shortest term: shorter ones (`id`, `200`, `py`) say nothing specific. */
const MIN_TERM = 4;

const CHUNK = /[A-Za-z0-9_][\w./@:-]*/g;
const NUMBER = /^\d+(?:\.\d+)?$/;
const IDENTIFIER = /^[A-Za-z_]\w*$/;

/**
 * Whether a number says something specific: four characters or more (an id, an amount, a line number). A number that
 * recurs by coincidence (a year, a port) is left out by rarity: in more than two results it is no result's own.
 */
const specificNumber = (number: string) => number.length >= MIN_TERM;

/** Whether a piece without separators is specific on its own: a long number, or a name with `_`, digits or a hump. */
function specificPiece(piece: string): boolean {
  if (piece.length < MIN_TERM) return false;
  if (NUMBER.test(piece)) return specificNumber(piece);
  if (!IDENTIFIER.test(piece)) return /\d/.test(piece) && /[A-Za-z]/.test(piece);
  return piece.includes('_') || /\d/.test(piece) || /[a-z][A-Z]/.test(piece) || /[A-Z]{2}[a-z]/.test(piece);
}

/** Adds the specific terms of one chunk of text (a run of word characters and separators) to `terms`. */
function addTerms(chunk: string, terms: Set<string>): void {
  const trimmed = chunk.replace(/^[./@:-]+|[./@:-]+$/g, '');
  if (trimmed.length < MIN_TERM) return;
  if (NUMBER.test(trimmed)) {
    if (specificNumber(trimmed)) terms.add(trimmed);
    return;
  }
  const separator = trimmed.includes(':') ? ':' : trimmed.includes('/') ? '/' : undefined;
  if (separator) {
    // a path or a location: the whole (when it names something) and each of its parts
    if (/[A-Za-z]/.test(trimmed)) terms.add(trimmed);
    for (const part of trimmed.split(separator)) if (part) addTerms(part, terms);
    return;
  }
  const pieces = trimmed.split(/[.@-]+/).filter((piece) => piece.length > 0);
  // a dotted name, a file name, an address, a date: the whole, unless hyphenated words or short numbers
  if (pieces.length > 1 && /[.@]/.test(trimmed) && !pieces.every((piece) => /^\d{1,2}$/.test(piece))) {
    terms.add(trimmed);
  }
  for (const piece of pieces) if (specificPiece(piece)) terms.add(piece);
}

/** The specific terms of a text: paths, dotted names, identifiers with `_`, digits or inner capitals, long numbers. */
export function specificTerms(text: string): ReadonlySet<string> {
  const terms = new Set<string>();
  for (const match of text.slice(0, MAX_TEXT).matchAll(CHUNK)) addTerms(match[0], terms);
  return terms;
}
