/**
 * One look at a time, however many asks: an ask while a look runs asks for one more look after it
 * (notifications that come meanwhile are answered by that one, not by one each).
 */
export class Coalesced {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly look: () => Promise<void>) {}

  ask(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.look().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.ask();
      }
    });
  }

  /** The look under way, if any. */
  get current(): Promise<void> | null {
    return this.running;
  }
}
