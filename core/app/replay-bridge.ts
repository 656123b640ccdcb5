/**
 * Replay for the app. TEMPORARY: waits for core/replay/replay.ts; until it lands the command
 * answers NOT_AVAILABLE, never made-up data.
 */
import type { ReplayInfo } from '../api/app-types.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';

export function replayInfo(_archive: Archive, url: string, _at?: string): ReplayInfo {
  throw new TroveError('NOT_AVAILABLE', `replay is not available yet (${url})`);
}
