import type { CuttableList } from './tool.js';

/** Characters of text one tool answer may hold (contract section 8), its JSON and summary together. */
export const MAX_ANSWER_CHARS = 20_000;

/** Characters of one message (a log line, an error) kept in an answer. */
export const MAX_MESSAGE_CHARS = 500;

/** `text` cut to `max` characters with an ellipsis and how much was cut. */
export function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

type Answer = Record<string, unknown> & { more?: string };

/** What a client receives: the summary as text and the answer as structured content. */
export function sizeOf(answer: Answer, summary: string): number {
  return JSON.stringify({ content: [{ type: 'text', text: summary }], structuredContent: answer }).length;
}

/**
 * Cuts the answer's lists, in the order given, to the longest prefixes that keep it under
 * MAX_ANSWER_CHARS, and says in `more` how many entries were left out and which argument reads
 * them. Answers that fit are untouched. Resolves with the summary of the answer as it stands.
 */
export function fitAnswer(
  answer: Answer,
  lists: readonly CuttableList[],
  summarize: (answer: Answer) => string,
): string {
  const fits = () => sizeOf(answer, summarize(answer)) <= MAX_ANSWER_CHARS;
  const notes: string[] = [];
  const earlier = answer.more;
  for (const list of lists) {
    if (fits()) break;
    const all = answer[list.key];
    if (!Array.isArray(all) || all.length === 0) continue;
    const keep = (kept: number) => {
      answer[list.key] = all.slice(0, kept);
      answer.more = [...notes, list.note(all.length - kept, kept), earlier].filter(Boolean).join(' ');
    };
    // The longest prefix that fits with its note, by bisection (an answer is rendered a few times only).
    let low = 0;
    let high = all.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      keep(middle);
      if (fits()) low = middle;
      else high = middle - 1;
    }
    keep(low);
    notes.push(list.note(all.length - low, low));
  }
  return summarize(answer);
}
