/** The corpus robots vectors, typed, for the robots tests. */
import { readFileSync } from 'node:fs';
import { corpusPath } from '../helpers/corpus.ts';

export interface RobotsVector {
  id: string;
  robots: string;
  agent: string;
  url: string;
  allowed: boolean;
  semantics: 'rfc9309' | 'google' | 'heritrix';
  source: string;
  note?: string;
  google_robotstxt_result: boolean;
  crawlDelay?: number | null;
  sitemaps?: string[];
}

export const robotsVectors: RobotsVector[] = JSON.parse(readFileSync(corpusPath('robots-vectors.json'), 'utf8'));

export const rfc9309Vectors = robotsVectors.filter((v) => v.semantics === 'rfc9309');

export interface RobotsPathVectors {
  url_to_match_path: Array<{ url: string; path: string; source: string }>;
  pattern_escaping: Array<{ pattern: string; escaped: string; source: string }>;
}

export const robotsPathVectors: RobotsPathVectors = JSON.parse(readFileSync(corpusPath('robots-path-vectors.json'), 'utf8'));
