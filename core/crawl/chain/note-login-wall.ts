/**
 * Post-fetch, in a crawl without `--logged-in-check` (issue 36: "without a profile, none is
 * archived, and the crawl says why"): a response that is a login wall (a 401, or a redirect to
 * a login page: logged-in-check.ts `loginWall`) is archived as it came, and the crawl says once
 * that the site needs a login it lacks, and how to give it one (the CLI prints it, the app's
 * monitor shows it). With a check, such a response pauses the crawl instead (check-logged-in.ts).
 */
import { loginWall } from '../logged-in-check.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

export const noteLoginWall: Processor = {
  name: 'note-login-wall',
  reads: { settings: [], services: ['loginWall'] },
  shouldProcess: (ctx, curi) => ctx.loginWall !== undefined && curi.fetch !== undefined && curi.fetch.status !== null,
  process(ctx, curi): ProcessResult {
    const why = loginWall(curi.uri.url, curi.fetch!);
    if (why !== null) ctx.loginWall!.seen(curi.uri.url, why);
    return 'proceed';
  },
};
