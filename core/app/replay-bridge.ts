/**
 * Replay as the app's hosts need it: the Electron protocol handler and the e2e harness answer
 * every request of a replay view with `replayResponse` and fill the banner with `replayInfo`.
 * Both live in core/replay/replay-response.ts, where `trove qa` (below the app) uses them too.
 */
export { replayInfo, replayResponse, type ReplayHttpRequest, type ReplayHttpResponse } from '../replay/replay-response.ts';
