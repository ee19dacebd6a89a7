import type { Message } from '../transcript/transcript.js';
import { CONSTRAINT_SIGNAL, DECISION_SIGNAL, sentences } from './fact-signals.js';

/** Longest quote of the protected core, in characters; a longer sentence is quoted up to a word end. */
const MAX_QUOTE_CHARS = 300;
/** Most quotes of the protected core of one batch of messages. */
const MAX_QUOTES = 12;
/** What a failure reads like: never kept as a goal-critical quote. */
const FAILURE = /\b(?:error|exception|traceback|failed|failure|timed out|rate limit)\b/i;

/**
 * The part of some messages that must survive even when no summary can be made, found by rules and quoted verbatim:
 * the task (the opening of the first user message), and the constraints and decisions stated by the user or the
 * assistant. Tool output and anything that reads like an error are never part of it. Every quote is a substring of
 * a message.
 */
export function protectedCore(messages: readonly Message[]): string[] {
  const quotes: string[] = [];
  const add = (text: string) => {
    const quote = quoteOf(text);
    if (quote !== '' && !FAILURE.test(quote) && !quotes.includes(quote)) quotes.push(quote);
  };
  const task = messages.find((message) => message.role === 'user' && !message.synthetic);
  const taskText = task ? textOf(task) : '';
  const first = taskText.split('\n').find((line) => line.trim() !== '');
  if (first) add(first.trim());
  for (const message of messages) {
    if (message.synthetic || (message.role !== 'user' && message.role !== 'assistant')) continue;
    for (const [sentence, inCode] of sentences(textOf(message))) {
      if (quotes.length >= MAX_QUOTES) return quotes;
      if (!inCode && (CONSTRAINT_SIGNAL.test(sentence) || DECISION_SIGNAL.test(sentence))) add(sentence);
    }
  }
  return quotes;
}

function textOf(message: Message): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
}

function quoteOf(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= MAX_QUOTE_CHARS) return trimmed;
  const end = trimmed.lastIndexOf(' ', MAX_QUOTE_CHARS);
  return trimmed.slice(0, end > MAX_QUOTE_CHARS / 2 ? end : MAX_QUOTE_CHARS);
}
