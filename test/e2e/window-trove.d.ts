import type { TroveApi } from '../../core/api/channels.ts';

declare global {
  interface Window {
    trove: TroveApi;
  }
}
