// Serves only the latest of a burst of requests: at most one job runs at a
// time, and requests made while it runs collapse into one follow-up job with
// the newest value. Used for seeks, so that holding → fetches the frame of the
// step the key press reached, not every step on the way.

/** Runs `run(value)` for the latest requested value only, one job at a time, in request order. */
export class LatestOnly<T> {
  private wanted: { value: T } | null = null;
  private running: Promise<void> | null = null;
  private readonly run: (value: T) => Promise<void>;
  private readonly onError: (err: unknown, value: T) => void;

  /** `run` does the work; its rejections go to `onError` and do not stop later requests. */
  constructor(run: (value: T) => Promise<void>, onError: (err: unknown, value: T) => void) {
    this.run = run;
    this.onError = onError;
  }

  /** True while a job runs. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Asks for `value`; resolves (never rejects) once the queue is idle, i.e. the latest request was served. */
  request(value: T): Promise<void> {
    this.wanted = { value };
    this.running ??= this.drain();
    return this.running;
  }

  /** Forgets the request not yet started, if any (a job already running still finishes). */
  clear(): void {
    this.wanted = null;
  }

  private async drain(): Promise<void> {
    try {
      while (this.wanted) {
        const { value } = this.wanted;
        this.wanted = null;
        try {
          await this.run(value);
        } catch (err) {
          this.onError(err, value);
        }
      }
    } finally {
      this.running = null;
    }
  }
}
