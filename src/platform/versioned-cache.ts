// Values read at a version and forgotten all at once when it moves, so no change,
// however it reached the database, is outrun by a cached answer.

export class VersionedCache<Key, Value> {
  private readonly entries = new Map<Key, Value>();
  private readonly reading = new Map<Key, Promise<Value | undefined>>();
  private filledAt: number | undefined;

  /** `capacity` entries at most; the oldest goes first when full. */
  constructor(private readonly capacity: number, private readonly version: () => number) {}

  /**
   * The value for `key`, from memory or from `read`; kept only if the version did not
   * move while it was read, as a change meanwhile may have come after the read. A burst
   * of look-ups of one key at one version costs one read.
   */
  get(key: Key, read: (key: Key) => Promise<Value | undefined>): Promise<Value | undefined> {
    const now = this.version();
    if (now !== this.filledAt) {
      this.entries.clear();
      this.reading.clear();
      this.filledAt = now;
    }
    const cached = this.entries.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.reading.get(key);
    if (pending === undefined) {
      pending = this.readAndKeep(key, read, now);
      this.reading.set(key, pending);
    }
    return pending;
  }

  /** The value held for `key` at the current version, without reading; undefined when none is. */
  peek(key: Key): Value | undefined {
    return this.version() === this.filledAt ? this.entries.get(key) : undefined;
  }

  private async readAndKeep(key: Key, read: (key: Key) => Promise<Value | undefined>, version: number): Promise<Value | undefined> {
    try {
      const value = await read(key);
      // An absence is never kept: a row written later must be found.
      if (value !== undefined && this.version() === version) {
        if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as Key);
        this.entries.set(key, value);
      }
      return value;
    } finally {
      if (this.filledAt === version) this.reading.delete(key);
    }
  }
}
