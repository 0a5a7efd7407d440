import { badInput } from '../../errors.js';

/** Bytes an answer line costs beyond its text: the JSON of its keys, quotes and timestamp. */
export const LINE_OVERHEAD_BYTES = 64;

/** `bytes` as megabytes with one decimal, for messages. */
export const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * What one answer may still carry, in bytes of log text (WFAPI_MAX_ANSWER_BYTES), shared by
 * every field of the request (aliases included). Log reads charge it with what they would answer,
 * measured in the database before the lines are read, so an answer past it is refused without
 * being built: the server's memory per request stays bounded by the budget.
 */
export class AnswerBudget {
  private left: number;

  constructor(readonly max: number) {
    this.left = max;
  }

  /**
   * Takes `bytes` from the budget, or throws BAD_USER_INPUT with `refusal`'s message (given what
   * the answer may carry in all) and takes nothing.
   */
  charge(bytes: number, refusal: (max: string) => string): void {
    if (bytes > this.left) throw badInput(refusal(megabytes(this.max)));
    this.left -= bytes;
  }

  /** What the answer may still carry, in bytes. */
  get remaining(): number {
    return this.left;
  }

  /** Whether nothing was charged yet: the answer may still carry its whole budget. */
  get untouched(): boolean {
    return this.left === this.max;
  }

  /**
   * Takes `bytes` without refusing, leaving nothing when they are more than remains: for what a
   * paged read measured against `remaining`, and for the one line it answers whatever its size
   * when the answer is untouched, lest a line larger than a budget configured below it be
   * unreadable.
   */
  take(bytes: number): void {
    this.left = Math.max(0, this.left - bytes);
  }
}
