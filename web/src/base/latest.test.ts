import { describe, expect, it } from 'vitest';
import { LatestOnly } from './latest';

/** A job whose completion the test controls. */
function gate() {
  let open: () => void = () => {};
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

describe('LatestOnly', () => {
  it('runs one job at a time and only the latest of the requests made meanwhile', async () => {
    const started: number[] = [];
    const gates = new Map<number, ReturnType<typeof gate>>();
    const runner = new LatestOnly<number>(
      (n) => {
        started.push(n);
        const g = gate();
        gates.set(n, g);
        return g.done;
      },
      () => {},
    );
    const idle = runner.request(1);
    for (const n of [2, 3, 4, 5]) void runner.request(n);
    expect(started).toEqual([1]);
    expect(runner.busy).toBe(true);
    gates.get(1)?.open();
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual([1, 5]);
    gates.get(5)?.open();
    await idle;
    expect(started).toEqual([1, 5]);
    expect(runner.busy).toBe(false);
  });

  it('keeps serving after a job fails, reporting the failure', async () => {
    const errors: string[] = [];
    const done: number[] = [];
    const runner = new LatestOnly<number>(
      async (n) => {
        if (n === 1) throw new Error('boom');
        done.push(n);
      },
      (err, n) => errors.push(`${n}: ${(err as Error).message}`),
    );
    void runner.request(1);
    await runner.request(2);
    expect(errors).toEqual(['1: boom']);
    expect(done).toEqual([2]);
  });

  it('clear() drops a request that has not started', async () => {
    const started: number[] = [];
    const g = gate();
    const runner = new LatestOnly<number>(
      (n) => {
        started.push(n);
        return n === 1 ? g.done : Promise.resolve();
      },
      () => {},
    );
    const idle = runner.request(1);
    void runner.request(2);
    runner.clear();
    g.open();
    await idle;
    expect(started).toEqual([1]);
  });
});
