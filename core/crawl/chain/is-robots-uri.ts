/** A robots.txt prerequisite (hop P, queued by the robots gate): fetched before its host's URIs. */
import type { ClaimedUri } from '../../frontier/frontier.ts';

export function isRobotsUri(uri: ClaimedUri): boolean {
  return uri.hopsPath.endsWith('P') && uri.viaContext === 'robots';
}
