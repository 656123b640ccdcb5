/**
 * The library's schedules and the record of their runs, in one JSON file of the library folder
 * (`schedules.json`), written whole and renamed into place so a crash never leaves half a file.
 * Only the last EVENTS_KEPT events of each series are kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ScheduleEvent, ScheduleState } from '../api/series-types.ts';
import type { ScheduleStoreLike } from './recrawl-scheduler.ts';

export const SCHEDULES_FILE = 'schedules.json';
const EVENTS_KEPT = 200;

interface FileShape {
  schedules: ScheduleState[];
  events: ScheduleEvent[];
}

export class ScheduleStore implements ScheduleStoreLike {
  private readonly file: string;

  constructor(libraryDir: string) {
    this.file = path.join(libraryDir, SCHEDULES_FILE);
  }

  private read(): FileShape {
    try {
      const v = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Partial<FileShape>;
      return { schedules: Array.isArray(v.schedules) ? v.schedules : [], events: Array.isArray(v.events) ? v.events : [] };
    } catch {
      return { schedules: [], events: [] };
    }
  }

  private write(v: FileShape): void {
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(v, null, 1));
    fs.renameSync(tmp, this.file);
  }

  load(): ScheduleState[] {
    return this.read().schedules;
  }

  save(states: ScheduleState[]): void {
    this.write({ ...this.read(), schedules: states });
  }

  addEvent(e: ScheduleEvent): void {
    const v = this.read();
    v.events.push(e);
    const mine = v.events.filter((x) => x.id === e.id);
    if (mine.length > EVENTS_KEPT) {
      const drop = new Set(mine.slice(0, mine.length - EVENTS_KEPT));
      v.events = v.events.filter((x) => !drop.has(x));
    }
    this.write(v);
  }

  /** A series' events, newest first. */
  events(id: string): ScheduleEvent[] {
    return this.read().events.filter((e) => e.id === id).reverse();
  }
}
