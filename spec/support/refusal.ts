/**
 * What a synchronous check does with a value, in one word the spec can compare: the code of the error it throws, or
 * 'accepted' when it throws none (for checks run at activation, whose refusals carry a stable code).
 */
export function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'accepted';
}

/** The failure of `work`, which must fail: any error, as it was thrown. */
export async function failureOf(work: () => Promise<unknown>): Promise<Error> {
  return work().then(() => { throw new Error('it did not fail'); }, (error: unknown) => error as Error);
}
