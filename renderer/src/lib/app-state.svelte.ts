/**
 * App-wide UI state: which screen, which library entry is in focus, theme, toasts, and the
 * app info (defaults, presets) the core hands over at start.
 */
import type { AppInfo, LibraryEntry, MenuAction, ThemeSource } from '../../../core/api/app-types.ts';
import type { TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import type { Tone } from './format.ts';

export type Screen = 'library' | 'new-crawl' | 'monitor' | 'browser' | 'record';

export const SCREENS: { id: Screen; label: string; key: string }[] = [
  { id: 'library', label: 'Library', key: '1' },
  { id: 'new-crawl', label: 'New crawl', key: '2' },
  { id: 'monitor', label: 'Monitor', key: '3' },
  { id: 'browser', label: 'WARC browser', key: '4' },
  { id: 'record', label: 'Record', key: '5' },
];

export interface Toast {
  id: number;
  message: string;
  tone: Tone;
}

export interface Focus {
  id: string;
  name: string;
  kind: 'crawl' | 'archive';
}

export class AppState {
  screen = $state<Screen>('library');
  info = $state.raw<AppInfo | null>(null);
  /** The crawl or archive the Monitor and the WARC browser show. */
  focus = $state.raw<Focus | null>(null);
  theme = $state<ThemeSource>('system');
  toasts = $state<Toast[]>([]);
  error = $state<string | null>(null);
  /** Bumped by the `find` shortcut; the browser focuses its search box when it changes. */
  findRequest = $state(0);

  readonly api: TroveApi;
  private nextToast = 1;

  constructor(api: TroveApi) {
    this.api = api;
  }

  async init(): Promise<void> {
    const r = await attempt(this.api.app.info());
    if (r.ok) this.info = r.value;
    else this.error = r.message;
  }

  go(screen: Screen): void {
    this.screen = screen;
  }

  setFocus(focus: Focus | null, screen?: Screen): void {
    this.focus = focus;
    if (screen) this.screen = screen;
  }

  /**
   * On the Monitor with no crawl in focus, the crawl that runs (a fetching one before a paused
   * one) is selected, so the Monitor never says "No crawl selected" while the sidebar counts one.
   */
  followRunningCrawl(entries: readonly LibraryEntry[]): void {
    if (this.screen !== 'monitor' || this.focus?.kind === 'crawl') return;
    const running = entries.filter((e) => e.kind === 'crawl' && e.running);
    const pick = running.find((e) => e.state !== 'paused' && e.state !== 'pausing') ?? running[0];
    if (pick) this.focus = { id: pick.id, name: pick.name, kind: 'crawl' };
  }

  toast(message: string, tone: Tone = 'info', ms = 4000): void {
    const id = this.nextToast++;
    this.toasts = [...this.toasts, { id, message, tone }];
    setTimeout(() => this.dismiss(id), ms);
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  setTheme(theme: ThemeSource): void {
    this.theme = theme;
    if (typeof document !== 'undefined') {
      if (theme === 'system') delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = theme;
    }
    void this.api.shell.setTheme({ theme });
  }

  cycleTheme(): void {
    this.setTheme(this.theme === 'system' ? 'dark' : this.theme === 'dark' ? 'light' : 'system');
  }

  /** Screen-level menu actions; the rest (import, pause…) are handled by the screens. */
  handleMenu(action: MenuAction): boolean {
    const screen = MENU_SCREENS[action];
    if (!screen) return false;
    this.go(screen);
    if (action === 'find') this.findRequest++;
    return true;
  }
}

/** The menu actions that show a screen (`find` shows the browser and focuses its search box). */
const MENU_SCREENS: Partial<Record<MenuAction, Screen>> = {
  'go-library': 'library',
  'go-new-crawl': 'new-crawl',
  'go-monitor': 'monitor',
  'go-browser': 'browser',
  'go-record': 'record',
  find: 'browser',
};

/** Keyboard shortcut → menu action (the same keys the native menu shows). */
export function shortcutAction(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): MenuAction | null {
  const mod = e.ctrlKey || e.metaKey;
  if (!mod || e.altKey) return null;
  const key = e.key.toLowerCase();
  if (!e.shiftKey) {
    if (key === '1') return 'go-library';
    if (key === '2' || key === 'n') return 'go-new-crawl';
    if (key === '3') return 'go-monitor';
    if (key === '4') return 'go-browser';
    if (key === '5') return 'go-record';
    if (key === 'i' || key === 'o') return 'import';
    if (key === 'f') return 'find';
    if (key === 'p') return 'pause-resume';
  } else if (key === 's' || key === '.') {
    return 'stop';
  }
  return null;
}
