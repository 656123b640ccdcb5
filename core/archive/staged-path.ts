/**
 * How an import's staged registration is told apart (import-staging.ts): its WARC's path with
 * this suffix, which no real path ends with. Its own file, as both the staging and the archive's
 * file resolver (archive-dir.ts) read it and the staging imports the archive.
 */
export const STAGED_SUFFIX = '\u0000importing';
