/**
 * Channels and events: how commands and events travel, and the `window.trove` object the
 * renderer sees. Commands go down (`invoke` on `trove:<name>`), events come up (`trove:event:<name>`).
 *
 * `buildTroveApi` loops over the command and event names; it is the only way `window.trove` is
 * built, by the Electron preload (over ipcRenderer) and by the e2e harness (over a Playwright
 * binding). It must stay self-contained (no references outside its body): the harness injects
 * it into the page as source text.
 */
import type { CrawlSnapshot, CrawlState, FinishReason } from './crawl-snapshot.ts';
import type { ExportProgressInfo, ImportProgress, MenuAction, RecordStatus, ReplayInfo, ReplayMissing } from './app-types.ts';
import type { CommandName, PayloadOf, ResultOf } from './commands.ts';
import type { QaJobKind, QaJobStatus } from './qa-view-types.ts';
import type { CrawlLogCode } from './error-codes.ts';
import type { Result } from './result.ts';

export const COMMAND_CHANNEL_PREFIX = 'trove:';
export const EVENT_CHANNEL_PREFIX = 'trove:event:';

export function commandChannel(name: CommandName): string {
  return COMMAND_CHANNEL_PREFIX + name;
}

export function eventChannel(name: EventName): string {
  return EVENT_CHANNEL_PREFIX + name;
}

/** Events the app sends up. */
export interface Events {
  /** A running crawl's progress, at most ~4 a second per crawl. */
  'crawl.snapshot': { id: string; snapshot: CrawlSnapshot };
  'crawl.state': { id: string; state: CrawlState; reason: FinishReason | null; message: string | null };
  'crawl.log': { id: string; level: 'info' | 'warn' | 'error'; code: CrawlLogCode; message: string };
  /** The library folder changed (crawl started or finished, import done, delete). */
  'library.changed': { id: string | null };
  'import.progress': { id: string; progress: ImportProgress };
  'export.progress': { exportId: string; archiveId: string; progress: ExportProgressInfo };
  /** The replay view went to another page (a click inside the archived page). */
  'replay.navigated': { archiveId: string; url: string; info: ReplayInfo | null };
  /** The replayed page asked for URLs the archive does not hold (all of them so far, for that page). */
  'replay.missing': ReplayMissing;
  /** The recording's progress: after each page and every few exchanges, and when it stops. */
  'record.progress': RecordStatus;
  /** A QA run's or patch's progress on an archive: after each page scored (and each patch fetch). */
  'qa.progress': QaJobStatus;
  /** A QA run or patch ended (done, cancelled or failed); its results are in the archive. */
  'qa.done': { archiveId: string; job: QaJobKind; ok: boolean; cancelled: boolean; message: string | null };
  /** A native menu item or its shortcut. */
  menu: { action: MenuAction };
}

export type EventName = keyof Events;

const EVENT_LIST = [
  'crawl.snapshot',
  'crawl.state',
  'crawl.log',
  'library.changed',
  'import.progress',
  'export.progress',
  'replay.navigated',
  'replay.missing',
  'record.progress',
  'qa.progress',
  'qa.done',
  'menu',
] as const satisfies readonly EventName[];

export const EVENT_NAMES: readonly EventName[] = EVENT_LIST;

// Every key of Events is listed (a compile error otherwise).
type Missing = Exclude<EventName, (typeof EVENT_LIST)[number]>;
const _allEventsListed: [Missing] extends [never] ? true : Missing = true;
void _allEventsListed;

export type Emit = <E extends EventName>(name: E, payload: Events[E]) => void;

// ── window.trove ─────────────────────────────────────────────────────────────────────────

type Namespace<K extends string> = K extends `${infer N}.${string}` ? N : never;
type Method<K extends string, N extends string> = K extends `${N}.${infer M}` ? M : never;

type Call<K extends CommandName> = {} extends PayloadOf<K>
  ? (payload?: PayloadOf<K>) => Promise<Result<ResultOf<K>>>
  : (payload: PayloadOf<K>) => Promise<Result<ResultOf<K>>>;

export type TroveCommands = {
  [N in Namespace<CommandName>]: { [K in CommandName as Method<K, N>]: Call<K> };
};

export interface TroveApi extends TroveCommands {
  /** Listen to an event; returns the unsubscribe function. */
  on<E extends EventName>(name: E, listener: (payload: Events[E]) => void): () => void;
  /** The path of a dropped or chosen file (Electron only; null in a browser). */
  pathForFile(file: File): string | null;
}

export interface TroveTransport {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  subscribe(channel: string, listener: (payload: unknown) => void): () => void;
  pathForFile(file: File): string | null;
}

/**
 * Build `window.trove` from the names. Self-contained on purpose (see the file comment): the
 * prefixes are repeated here, and a test checks they match the constants above.
 */
export function buildTroveApi(commandNames: readonly string[], eventNames: readonly string[], transport: TroveTransport): TroveApi {
  const api: Record<string, unknown> = {};
  for (const name of commandNames) {
    const dot = name.indexOf('.');
    const ns = name.slice(0, dot);
    const method = name.slice(dot + 1);
    const group = (api[ns] ??= {}) as Record<string, unknown>;
    const channel = 'trove:' + name;
    group[method] = (payload?: unknown) => transport.invoke(channel, payload === undefined ? {} : payload);
  }
  const known = new Set(eventNames);
  api.on = (name: string, listener: (payload: unknown) => void) => {
    if (!known.has(name)) throw new Error('unknown event ' + name);
    if (typeof listener !== 'function') throw new Error('listener must be a function');
    return transport.subscribe('trove:event:' + name, listener);
  };
  api.pathForFile = (file: File) => transport.pathForFile(file);
  for (const value of Object.values(api)) if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(api) as unknown as TroveApi;
}
