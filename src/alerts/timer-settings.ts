/** How the rule timer (rule-timer.ts) paces the rules it evaluates, section 5's and section 7's alike. */
export interface TimerSettings {
  /** How often each rule is evaluated. */
  readonly evaluateMs: number;
  /** How often a firing ALERTMANAGER alert is posted again. */
  readonly resendMs: number;
}
