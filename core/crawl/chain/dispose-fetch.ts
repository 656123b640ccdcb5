/** Give back what a fetch holds (its spooled body and decoded entity), ignoring errors. */
import type { FetchResult } from '../../fetch/fetcher.ts';

export async function disposeFetch(f: FetchResult): Promise<void> {
  await f.body?.dispose().catch(() => {});
  if (f.entity && f.entity !== f.body) await f.entity.dispose().catch(() => {});
}
