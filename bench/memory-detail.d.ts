// Types for memory-detail.js (plain JavaScript so the crawl child can load it before the TypeScript core).
export interface SmapsGroups {
  mallocMain: number;
  mallocArenas: number;
  threadStacks: number;
  anonOther: number;
  sqliteShm: number;
  sqliteMmap: number;
  nodeBinary: number;
  sharedLibs: number;
  otherFiles: number;
}

/** One sample, in MiB (see memory-detail.js). */
export interface MemoryDetail {
  rss: number;
  anonymous: number;
  groups: SmapsGroups;
  arenas: number;
  stacks: number;
  main: { heapUsed: number; heapTotal: number; physical: number; external: number; arrayBuffers: number; malloced: number };
  workers: { heapUsed: number; physical: number; external: number; malloced: number }[];
  native: number;
  sqliteConnections: number;
}

/** Resident bytes of this process by kind of mapping. */
export function smapsGroups(): { groups: SmapsGroups; arenas: number; stacks: number };
export function rollup(): { rss: number; anonymous: number; privateClean: number; sharedClean: number };
export function openCount(file: string): number;
export function memoryDetail(workers: { getHeapStatistics(): Promise<import('node:v8').HeapInfo> }[], dbFile: string): Promise<MemoryDetail>;
