// A small seeded generator, so a bot decides the same way when its game is replayed: the seed is a
// string (the starter uses "<game id>:<version>", as examples/any_game_bot.py does), hashed with
// FNV-1a into the state of mulberry32. Not Python's random.Random: the same seed picks differently
// in the two starters, but each always picks the same for the same seed.

export function hash(seed: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(seed)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Random {
  private state: number;

  constructor(seed: string) {
    this.state = hash(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("choice from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }
}
