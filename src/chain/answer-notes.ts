import type { ReplyChoice } from '../neutral/reply.js';

/** The choices noted at most, as many as a caller may ask (the chat format's `n`): an index beyond (an upstream's, relayed) is not noted, so the notes stay small and dense. */
const MAX_NOTED_CHOICES = 128;

/** What ends a choice's text that lost some to the bound. */
const CUT = '…';

const noted = (choice: number): boolean => Number.isInteger(choice) && choice >= 0 && choice < MAX_NOTED_CHOICES;

/**
 * What a call's answer said, as its caller got it: its id and why each choice stopped, and (only
 * when asked too) the text of each choice. Noted by the format that wrote the answer (or the
 * passthrough that relayed it) when a plugin asked in time (`call.noteAnswer`, the telemetry
 * plugin's `onHeaders`); a call nobody asked for has none, and its answer is written with a
 * null check and nothing more.
 */
export class AnswerNotes {
  /** The answer's id as the caller got it (`chatcmpl-…`, `resp_…`, `msg_…`, Gemini's `responseId`); null until written. */
  id: string | null = null;
  /** Why each choice stopped, by choice index, in the words of the caller's format (`stop`, `end_turn`, `MAX_TOKENS`, …). */
  readonly finishReasons: string[] = [];
  /**
   * Each choice's output text, kept only when content was asked for (null otherwise): at most
   * `maxTextChars` in all, a choice that lost text to the bound ending with `…`.
   */
  readonly texts: string[] | null;
  private textChars = 0;

  constructor(
    content: boolean,
    /** The bound of the text kept, all choices together. */
    private readonly maxTextChars: number,
  ) {
    this.texts = content ? [] : null;
  }

  /** A whole reply as written: its id, each choice's reason (`reasonOf`, in the caller format's words) and text. */
  reply(id: string, choices: readonly ReplyChoice[], reasonOf: (choice: ReplyChoice) => string): void {
    this.id = id;
    choices.forEach((choice, index) => {
      this.finished(index, reasonOf(choice));
      this.text(index, (choice.content ?? '') + (choice.refusal ?? ''));
    });
  }

  /** A choice's finish reason; a later one for the same choice replaces it. */
  finished(choice: number, reason: string): void {
    if (noted(choice)) this.finishReasons[choice] = reason;
  }

  /** Output text of a choice, kept up to the bound when content was asked for. */
  text(choice: number, text: string): void {
    const texts = this.texts;
    if (texts === null || text === '' || !noted(choice)) return;
    const room = this.maxTextChars - this.textChars;
    const kept = (texts[choice] ?? '') + text.slice(0, room);
    if (text.length <= room) {
      this.textChars += text.length;
      texts[choice] = kept;
      return;
    }
    this.textChars = this.maxTextChars;
    texts[choice] = kept.endsWith(CUT) ? kept : kept + CUT;
  }
}
