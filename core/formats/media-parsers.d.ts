/**
 * The little of m3u8-parser and mpd-parser (videojs, Apache-2.0) that media-manifest.ts reads:
 * they ship no TypeScript types, so these are declared here, as loose as the parsers' output.
 */
declare module 'm3u8-parser' {
  export class Parser {
    push(chunk: string): void;
    end(): void;
    manifest: ParsedManifest;
  }
  export interface ParsedSegment {
    uri?: string;
    map?: { uri?: string };
    key?: { uri?: string };
  }
  export interface ParsedPlaylist {
    uri?: string;
    attributes?: Record<string, unknown>;
    segments?: ParsedSegment[];
    resolvedUri?: string;
    sidx?: { uri?: string; resolvedUri?: string };
  }
  export interface ParsedManifest {
    playlists?: ParsedPlaylist[];
    segments?: ParsedSegment[];
    mediaGroups?: Record<string, Record<string, Record<string, { uri?: string; playlists?: ParsedPlaylist[] }>>>;
  }
}

declare module 'mpd-parser' {
  import type { ParsedManifest } from 'm3u8-parser';
  export function parse(text: string, options?: { manifestUri?: string }): ParsedManifest;
  /** The MPD element, parsed with xmldom (throws on a document that is not an MPD). */
  export function stringToMpdXml(text: string): unknown;
}
