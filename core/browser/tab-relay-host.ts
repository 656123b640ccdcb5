/**
 * The owning side of the tab relay (protocol: tab-relay-protocol.ts): serves one MessagePort of a
 * crawl worker with tabs from `openTab` (in the app, hidden Electron windows whose
 * `webContents.debugger` is wrapped by `debuggerSession`; in tests, tabs of a playwright-core
 * Chromium). Commands go to the tab's CdpSession and their answers (or errors) come back; events
 * cross for the methods the worker listens to. When the port closes (the crawl is over, or its
 * worker ended however it ended) every tab opened for it is closed.
 */
import type { MessagePort } from 'node:worker_threads';
import type { RelayDown, RelayUp } from './tab-relay-protocol.ts';
import type { OpenTab, SourceTab } from './tab-source.ts';

interface HostTab {
  tab: SourceTab;
  listeners: Map<string, (params: unknown) => void>;
}

export interface TabRelayHost {
  /** Tabs open now (tests check they are all closed at the end). */
  readonly openTabs: number;
  /** Resolves once the port has closed and every tab is closed. */
  readonly closed: Promise<void>;
}

export function serveTabs(port: MessagePort, openTab: OpenTab, log: (message: string, err?: unknown) => void = () => {}): TabRelayHost {
  const tabs = new Map<number, HostTab>();
  let nextTab = 0;
  const openings = new Set<Promise<void>>();
  let ended = false;
  const post = (m: RelayUp) => {
    if (!ended) port.postMessage(m);
  };
  const fail = (id: number, err: unknown) => post({ type: 'failed', id, message: (err as Error)?.message ?? String(err) });

  const closeTab = async (n: number): Promise<void> => {
    const t = tabs.get(n);
    if (!t) return;
    tabs.delete(n);
    for (const [event, l] of t.listeners) t.tab.session.off(event, l);
    await t.tab.close().catch((err) => log('closing a crawl tab failed', err));
  };

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  port.on('message', (m: RelayDown) => {
    switch (m.type) {
      case 'open': {
        const opening = openTab().then(
          async (tab) => {
            if (ended) return void (await tab.close().catch((err) => log('closing a crawl tab failed', err)));
            const n = ++nextTab;
            tabs.set(n, { tab, listeners: new Map() });
            post({ type: 'opened', id: m.id, tab: n });
          },
          (err) => fail(m.id, err),
        );
        openings.add(opening);
        void opening.finally(() => openings.delete(opening));
        break;
      }
      case 'close-tab':
        void closeTab(m.tab).then(() => post({ type: 'result', id: m.id, result: null }));
        break;
      case 'send': {
        const t = tabs.get(m.tab);
        if (!t) return fail(m.id, new Error('tab closed'));
        t.tab.session.send(m.method, m.params).then(
          (result) => post({ type: 'result', id: m.id, result }),
          (err) => fail(m.id, err),
        );
        break;
      }
      case 'listen': {
        const t = tabs.get(m.tab);
        if (!t || t.listeners.has(m.event)) return;
        const l = (params: unknown) => post({ type: 'event', tab: m.tab, event: m.event, params });
        t.listeners.set(m.event, l);
        t.tab.session.on(m.event, l);
        break;
      }
      case 'unlisten': {
        const t = tabs.get(m.tab);
        const l = t?.listeners.get(m.event);
        if (!t || !l) return;
        t.listeners.delete(m.event);
        t.tab.session.off(m.event, l);
        break;
      }
    }
  });
  port.on('close', () => {
    ended = true;
    // A tab still being opened is closed as soon as it is (above); `closed` waits for it too.
    void Promise.all([...openings, ...[...tabs.keys()].map(closeTab)]).then(() => markClosed());
  });

  return {
    get openTabs() {
      return tabs.size;
    },
    closed,
  };
}
