/**
 * `--capture auto`'s decisions per page template (page-template.ts): `browser` (every page of it
 * is rendered), `http` (fetched over HTTP only, unless the page itself shows a sign), or not
 * decided yet: then the first page of the template is rendered as its sample, and the other
 * pages of it wait for that sample's verdict rather than each being rendered too (parked, with
 * their HTTP responses: the crawl's other fetches go on meanwhile, fetch-auto.ts).
 *
 * The decisions are kept in the crawl's meta table (the storage room's key/value home), written
 * on the crawl's connection inside its open group, so they commit with the crawl.log lines of the
 * pages that made them: after a resume, even after kill -9, a template decided stays decided and
 * its sample is not rendered again; a sample cut short by the kill was not decided, and its page,
 * back in the queue, is its template's sample again.
 */
import type Database from 'better-sqlite3';
import { getMeta, setMeta } from '../storage/meta.ts';
import type { RenderEvidence } from './page-template.ts';

const META_KEY = 'renderTemplates';

export type RenderDecision = 'browser' | 'http';

export interface TemplateDecision {
  decision: RenderDecision;
  /** The page whose rendering decided it, and what it showed. */
  sample: string;
  evidence: RenderEvidence;
}

export class RenderDecisions {
  readonly #db: Database.Database;
  readonly #decided: Map<string, TemplateDecision>;
  /** Templates whose sample is being rendered, and the wake-up of the pages waiting for it. */
  readonly #sampling = new Map<string, { done: Promise<void>; wake: () => void }>();
  /**
   * Pages that waited parked (their queue slot given back) and then had to render: put back in
   * the queue so that their rendering holds a host slot like any fetch, and rendered straight
   * away when claimed again, with the reason they were given. In memory only: after a kill the
   * page is fetched over HTTP again and its template's stored decision sends it to the browser.
   */
  readonly #renderNext = new Map<string, string>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#decided = new Map(Object.entries(getMeta<Record<string, TemplateDecision>>(db, META_KEY) ?? {}));
  }

  /**
   * What to do with a page of `template`: its decision, or `sample` (this page renders as the
   * template's sample; the caller must `settle` it). Waits while another page's sample is out.
   */
  async claim(template: string, signal?: AbortSignal): Promise<RenderDecision | 'sample'> {
    for (;;) {
      const d = this.#decided.get(template);
      if (d) return d.decision;
      // A hard stop: the caller puts the page back; nothing is decided or claimed.
      if (signal?.aborted) return 'http';
      const out = this.#sampling.get(template);
      if (!out) {
        let wake!: () => void;
        const done = new Promise<void>((r) => (wake = r));
        this.#sampling.set(template, { done, wake });
        return 'sample';
      }
      await out.done;
    }
  }

  /** The template's decision, if it has one. */
  decided(template: string): RenderDecision | undefined {
    return this.#decided.get(template)?.decision;
  }

  /** Whether a page of `template` would wait for a sample's verdict now (`claim` would not answer at once). */
  awaitsSample(template: string): boolean {
    return !this.#decided.has(template) && this.#sampling.has(template);
  }

  /** The sample's verdict (stored, in the open group), or null when it could not be rendered (the next page samples). */
  settle(template: string, verdict: TemplateDecision | null): void {
    if (verdict) {
      this.#decided.set(template, verdict);
      setMeta(this.#db, META_KEY, Object.fromEntries(this.#decided));
    }
    const out = this.#sampling.get(template);
    this.#sampling.delete(template);
    out?.wake();
  }

  /** `url` renders, for `reason`, when it is next claimed (see #renderNext). */
  renderWhenClaimed(url: string, reason: string): void {
    this.#renderNext.set(url, reason);
  }

  /** The reason `url` was put back to render, once (then forgotten), or undefined. */
  takeRenderWhenClaimed(url: string): string | undefined {
    const reason = this.#renderNext.get(url);
    this.#renderNext.delete(url);
    return reason;
  }

  /** Templates decided so far, by decision. */
  counts(): Record<RenderDecision, number> {
    const c = { browser: 0, http: 0 };
    for (const d of this.#decided.values()) c[d.decision]++;
    return c;
  }
}
