/**
 * One budget of validation work per call: every subschema applied to a value, every character a pattern reads,
 * every value `enum`, `const` and `uniqueItems` compare, is charged to the call being checked, and the call is
 * refused once its budget is spent. Budgets per string or per value add up over a body of thousands of them; one
 * per call bounds what a schema and a body, both maybe from an attacker, make the process compute before it answers.
 * Validation is synchronous, so the budget in force is a module slot set around it.
 */
import { WebhookError } from '../../../core/errors.js';
import { DEFAULT_LIMITS } from '../../../core/option-limits.js';

/**
 * Units of work one call's schemas may cost by default (`limits.schemaWork`): a unit is about one subschema applied to
 * one value (more for one with many keywords), one character read by a pattern per instruction of its program
 * (RE2's slowest step, 20 to 40 ns), twenty per value and one per 32 characters that `enum`, `const` and
 * `uniqueItems` compare. About 0.1 s of the slowest work per call on a 2-core machine.
 */
export const CALL_BUDGET_UNITS = DEFAULT_LIMITS.schemaWork;
/**
 * Whatever the units say, a check still running this long after its first 16 384 units stops (a safety net: the units
 * should stop it first).
 */
export const CALL_BUDGET_MS = 200;
/** The clock is read once per this many units charged, not at every charge. */
const UNITS_PER_CLOCK_READ = 16_384;

/** The work left to one call. */
export class ValidationBudget {
  left: number;
  readonly #units: number;
  readonly #ms: number;
  /** Set at the first reading of the clock: a call whose checks stay small never reads it. */
  #deadline = Infinity;
  #untilClock = UNITS_PER_CLOCK_READ;

  constructor(units = CALL_BUDGET_UNITS, ms = CALL_BUDGET_MS) {
    this.left = units;
    this.#units = units;
    this.#ms = ms;
  }

  charge(units: number): void {
    this.left -= units;
    if (this.left < 0) throw tooCostly(`${this.#units} units of work`);
    this.#untilClock -= units;
    if (this.#untilClock > 0) return;
    this.#untilClock = UNITS_PER_CLOCK_READ;
    const now = performance.now();
    if (this.#deadline === Infinity) this.#deadline = now + this.#ms;
    else if (now > this.#deadline) throw tooCostly(`${this.#ms} ms`);
  }
}

/** The 422 of a call whose check would cost more than its budget; other calls go on. */
function tooCostly(what: string): WebhookError {
  return new WebhookError('PAYLOAD_TOO_COSTLY', `Checking the call against the webhook's schema would cost more than its budget (${what}), so it was refused unchecked.`, {
    hint: 'Send a smaller body. The server\'s owner can bound the schema (maxItems, maxLength) or raise the middleware option limits.schemaWork.',
  });
}

let current: ValidationBudget | undefined;

/** Runs a check under `budget` (a fresh one when none is given and none is in force). */
export function withinBudget<T>(budget: ValidationBudget | undefined, check: () => T): T {
  const outer = current;
  current = budget ?? outer ?? new ValidationBudget();
  try {
    return check();
  } catch (error) {
    // A schema that recurses as deep as the data allows can still overflow the stack on a deep body.
    // Only the stack's own overflow: any other RangeError is a fault, reported as one, not a refusal of the call.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw tooCostly('the nesting a check can follow');
    throw error;
  } finally {
    current = outer;
  }
}

/** Charges work to the budget in force; outside a check (nothing in force) it costs nothing. */
export function charge(units: number): void {
  current?.charge(units);
}

/** A pattern about to read `length` characters with a program of `size` instructions. */
export function chargePattern(length: number, size: number): void {
  current?.charge(length * size);
}
