/**
 * The "missing resources" of a replayed page (ReplayWeb.page shows the same): URLs the page
 * asked for that the archive does not hold. The replay handler knows, because it is the one
 * answering "not archived"; a host keeps one of these per page shown and tells the renderer.
 * Bounded, so a page that asks for endless URLs cannot grow it without limit.
 */
export const MISSING_MAX = 500;

export class MissingResources {
  #page = '';
  readonly #urls = new Set<string>();

  /** A new page is shown: its list starts empty. */
  reset(page: string): void {
    this.#page = page;
    this.#urls.clear();
  }

  get page(): string {
    return this.#page;
  }

  /** Note a miss; true when it is new (the host then tells the renderer). */
  note(url: string): boolean {
    if (url === this.#page || this.#urls.has(url) || this.#urls.size >= MISSING_MAX) return false;
    this.#urls.add(url);
    return true;
  }

  list(): string[] {
    return [...this.#urls];
  }
}
