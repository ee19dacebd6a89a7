import { type FileBytes, readFileBytes } from './file-bytes.js';
import { imageSize } from './image-size.js';
import { imageTokens } from './image-tokens.js';
import { pdfPageCount } from './pdf-pages.js';
import { type FileCounting, type ProviderFamily, UNKNOWN_FILE_COUNTING } from './provider-family.js';

/** A file or image part as an adapter reads it. */
export interface FileInput {
  /** The media type the part declares (`image/png`, `application/pdf`; a generic one is read from the bytes). */
  readonly mediaType: string;
  /** The content: bytes, base64 or a `data:` URL; any other URL, or none, leaves the bytes unknown. */
  readonly data?: Uint8Array | string;
  /** OpenAI's image detail (`low`, `high`, `auto`), from the part's provider options. */
  readonly detail?: string;
}

/** Tokens of a file of a kind no rule covers (an archive, a spreadsheet): a stated guess. */
export const DEFAULT_FILE_TOKENS = 1_000;

/**
 * Tokens per PDF page. Claude reads each page as its text plus an image of the page, "typically 1,500-3,000 tokens
 * per page" (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support#estimate-your-costs): the top of that
 * range. OpenAI also puts each page's text and image in the context
 * (https://platform.openai.com/docs/guides/pdf-files): a page image of four high-detail tiles (765) plus a dense page
 * of text, 1,600. Gemini counts "each document page" as 258 tokens (https://ai.google.dev/gemini-api/docs/document-processing).
 * An unknown provider counts the largest.
 */
export const PDF_PAGE_TOKENS: Readonly<Record<ProviderFamily, number>> = {
  anthropic: 3_000,
  openai: 1_600,
  google: 258,
  unknown: 3_000,
};

/** Pages of a PDF whose bytes are not known (a URL). */
export const DEFAULT_PDF_PAGES = 5;
/** Bytes per page of a PDF whose page count cannot be read (its page tree compressed): a text-heavy page's size. */
const PDF_BYTES_PER_PAGE = 50_000;
/** Most pages estimated from a PDF's size: the largest document a provider takes (Gemini's 1,000 pages). */
const MAX_ESTIMATED_PDF_PAGES = 1_000;

/**
 * Tokens of an audio or video file, whose length is not read: one minute at Gemini's published rates, 32 tokens a
 * second of audio and 263 of video (https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens), the highest.
 */
export const DEFAULT_AUDIO_TOKENS = 1_920;
/** See {@link DEFAULT_AUDIO_TOKENS}. */
export const DEFAULT_VIDEO_TOKENS = 15_780;

const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'file', '*/*']);

/**
 * Tokens a provider counts for a file: an image by its size (read from its header) and the provider's rule, a PDF
 * by its pages, audio and video by the stated defaults, a text file by its length, anything else
 * `DEFAULT_FILE_TOKENS`. `counting` names the provider and model; without it, the largest of the providers' counts.
 * Never throws.
 */
export function fileTokens(file: FileInput, counting: FileCounting = UNKNOWN_FILE_COUNTING): number {
  const bytes = file.data === undefined ? undefined : readFileBytes(file.data);
  const declared = file.mediaType.toLowerCase();
  const mediaType = GENERIC_TYPES.has(declared) || declared.endsWith('/*') ? (bytes?.mediaType ?? declared) : declared;
  const size = bytes && imageSize(bytes);
  if (size || mediaType.startsWith('image')) return imageTokens(size, counting, file.detail);
  if (mediaType === 'application/pdf' || bytes?.ascii(0, 8).startsWith('%PDF-'))
    return PDF_PAGE_TOKENS[counting.family] * pdfPages(bytes);
  if (mediaType.startsWith('audio')) return DEFAULT_AUDIO_TOKENS;
  if (mediaType.startsWith('video')) return DEFAULT_VIDEO_TOKENS;
  if (bytes && (mediaType.startsWith('text/') || /^application\/(json|xml|.*\+json|.*\+xml)$/.test(mediaType)))
    return Math.ceil(bytes.length / 4);
  return DEFAULT_FILE_TOKENS;
}

/** A PDF's pages: read from it, else estimated from its size, else `DEFAULT_PDF_PAGES`. */
function pdfPages(bytes: FileBytes | undefined): number {
  if (!bytes) return DEFAULT_PDF_PAGES;
  return (
    pdfPageCount(bytes) ?? Math.min(MAX_ESTIMATED_PDF_PAGES, Math.max(1, Math.ceil(bytes.length / PDF_BYTES_PER_PAGE)))
  );
}
