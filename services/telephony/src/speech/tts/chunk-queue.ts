/**
 * Chunks handed from a producer running at its own pace to a consumer reading at its own. Written
 * here rather than taken from Node's streams on purpose: a stream would push back on the engine
 * when the listener is slow (speech is heard in real time), and then the engine's time bound
 * would measure the listener. What waits is bounded by the producer (the engine's output bound).
 */
export class ChunkQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  /** Aborting ends the queue at once: what waits is dropped, the reader stops without an error. */
  constructor(signal?: AbortSignal) {
    if (signal?.aborted) this.drop();
    else signal?.addEventListener('abort', () => this.drop(), { once: true });
  }

  push(item: T): void {
    if (this.#ended) return;
    this.#items.push(item);
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The reader gets what waits, then `error`. */
  fail(error: Error): void {
    if (this.#ended) return;
    this.#error = error;
    this.end();
  }

  drop(): void {
    this.#items = [];
    this.#head = 0;
    this.#error = undefined;
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.#head < this.#items.length) {
        const item = this.#items[this.#head]!;
        this.#head++;
        if (this.#head > 64 && this.#head * 2 > this.#items.length) {
          this.#items = this.#items.slice(this.#head);
          this.#head = 0;
        }
        yield item;
      } else if (this.#ended) {
        if (this.#error) throw this.#error;
        return;
      } else {
        await new Promise<void>((wake) => {
          this.#wake = wake;
        });
      }
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
