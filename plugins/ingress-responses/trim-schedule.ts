/**
 * When a key's stored responses are trimmed to its byte budget: as soon as this process has
 * stored an eighth of the budget for it since its last trim, and otherwise at the hourly prune.
 * So a key holds at most its budget plus, per gateway process, an eighth of it and one response.
 * Sizes here are string lengths (cheap, on the call's path; the trim itself counts exact bytes):
 * a UTF-8 text has at least as many bytes as characters, so this never trims later than bytes would.
 */
export class TrimSchedule {
  /** Characters stored per key since its last trim; held for the keys of one prune interval. */
  private readonly pending = new Map<string, number>();
  private readonly trimAt: number;

  constructor(budget: number) {
    this.trimAt = Math.max(1, Math.floor(budget / 8));
  }

  /** Records what was stored for a key; true when the key is due a trim now (its count starts over). */
  stored(keyId: string, chars: number): boolean {
    const total = (this.pending.get(keyId) ?? 0) + chars;
    if (total < this.trimAt) {
      this.pending.set(keyId, total);
      return false;
    }
    this.pending.delete(keyId);
    return true;
  }

  /** Every key stored for since its last trim (for the hourly prune), forgotten here. */
  takeAll(): string[] {
    const keys = [...this.pending.keys()];
    this.pending.clear();
    return keys;
  }
}
