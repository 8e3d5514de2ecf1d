/**
 * One record kind in memory: records in id order, each with its JSON serialized (and UTF-8
 * encoded) once and cached until it changes, so a list page is a byte concatenation and the whole
 * list a cached buffer.
 */
import type { Rec } from './wire.js';

interface Slot {
  rec: Rec;
  json: Buffer | undefined;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

export class Table {
  private ids: number[] = [];
  private rows = new Map<number, Slot>();
  private tombs = new Map<number, Rec>();
  private allJson: Buffer | undefined;
  private highest = 0;

  get size(): number {
    return this.ids.length;
  }

  /** Ids are never reused, not even those of deleted records. */
  nextId(): number {
    return this.highest + 1;
  }

  has(id: number): boolean {
    return this.rows.has(id);
  }

  isDeleted(id: number): boolean {
    return this.tombs.has(id);
  }

  /** The live record (mutate only through `put` or followed by `touch`). */
  get(id: number): Rec | undefined {
    return this.rows.get(id)?.rec;
  }

  /** The record's JSON as UTF-8 bytes. */
  bytes(id: number): Buffer | undefined {
    const slot = this.rows.get(id);
    if (!slot) return undefined;
    return (slot.json ??= Buffer.from(JSON.stringify(slot.rec), 'utf8'));
  }

  json(id: number): string | undefined {
    return this.bytes(id)?.toString('utf8');
  }

  /** Insert or replace a record. */
  put(id: number, rec: Rec): void {
    const slot = this.rows.get(id);
    if (slot) {
      slot.rec = rec;
      slot.json = undefined;
    } else {
      this.rows.set(id, { rec, json: undefined });
      this.insertId(id);
      this.tombs.delete(id);
    }
    if (id > this.highest) this.highest = id;
    this.allJson = undefined;
  }

  /** Mark a record as changed in place. */
  touch(id: number): void {
    const slot = this.rows.get(id);
    if (slot) slot.json = undefined;
    this.allJson = undefined;
  }

  remove(id: number): Rec | undefined {
    const slot = this.rows.get(id);
    if (!slot) return undefined;
    this.rows.delete(id);
    const i = this.indexOf(id);
    if (i >= 0) this.ids.splice(i, 1);
    this.tombs.set(id, slot.rec);
    this.allJson = undefined;
    return slot.rec;
  }

  restore(id: number): boolean {
    const rec = this.tombs.get(id);
    if (!rec || this.rows.has(id)) return false;
    this.put(id, rec);
    return true;
  }

  deletedIds(): number[] {
    return [...this.tombs.keys()];
  }

  idList(): readonly number[] {
    return this.ids;
  }

  /** Serialize every record now, so the first full pull is as fast as the next ones. */
  warm(): void {
    for (const id of this.ids) this.bytes(id);
  }

  records(): Rec[] {
    return this.ids.map((id) => this.rows.get(id)!.rec);
  }

  /** JSON array of `count` records from `start` (count < 0: all), as UTF-8 bytes. */
  page(start: number, count: number): Buffer {
    const all = count < 0 || (start === 0 && count >= this.ids.length);
    if (all && start === 0) return (this.allJson ??= this.join(this.ids));
    const slice = all ? this.ids.slice(start) : this.ids.slice(start, start + count);
    return this.join(slice);
  }

  /** JSON array of the given records. */
  join(ids: readonly number[]): Buffer {
    if (ids.length === 0) return Buffer.from('[]');
    const parts = new Array<Buffer>(ids.length * 2 + 1);
    parts[0] = OPEN;
    for (let i = 0; i < ids.length; i++) {
      parts[i * 2 + 1] = this.bytes(ids[i]!)!;
      parts[i * 2 + 2] = i === ids.length - 1 ? CLOSE : COMMA;
    }
    return Buffer.concat(parts);
  }

  private indexOf(id: number): number {
    let lo = 0;
    let hi = this.ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private insertId(id: number): void {
    const n = this.ids.length;
    if (n === 0 || this.ids[n - 1]! < id) {
      this.ids.push(id);
      return;
    }
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    this.ids.splice(lo, 0, id);
  }
}
