/**
 * The public human-rated sets published with VADER (Hutto, C.J. & Gilbert,
 * E.E. (2014). VADER: A Parsimonious Rule-based Model for Sentiment Analysis
 * of Social Media Text. ICWSM-14), from the cjhutto/vaderSentiment
 * repository (MIT licence), kept in the repository with their source and
 * licence (test/fixtures/sentiment/vader-ground-truth/README.md), so the
 * evaluation runs on a clean clone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tone } from '../../../src/analysis/index.ts';

export interface RatedSnippet {
  id: number;
  /** mean human rating, -4 to +4 */
  rating: number;
  text: string;
  label: Tone;
}

export const PUBLIC_SETS = [
  { name: 'VADER tweets', file: 'tweets_GroundTruth.txt' },
  { name: 'VADER movie sentences', file: 'movieReviewSnippets_GroundTruth.txt' },
] as const;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const GROUND_TRUTH_DIR = path.resolve(REPO_ROOT, 'test/fixtures/sentiment/vader-ground-truth');

/**
 * Three classes from the mean rating, as the data's README gives them for
 * Sightline's figures: positive from +0.5, negative from -0.5, else neutral.
 */
export function ratingClass(rating: number): Tone {
  if (rating >= 0.5) return 'positive';
  if (rating <= -0.5) return 'negative';
  return 'neutral';
}

/** Lines `id<TAB>rating<TAB>text` (CRLF line ends in the published files). */
export function loadRated(file: string): RatedSnippet[] {
  const out: RatedSnippet[] = [];
  for (const line of readFileSync(path.join(GROUND_TRUTH_DIR, file), 'utf8').split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const [id, rating, ...rest] = line.split('\t');
    const value = Number(rating);
    if (id === undefined || Number.isNaN(value)) throw new Error(`unreadable line in ${file}: ${line.slice(0, 80)}`);
    out.push({ id: Number(id), rating: value, text: rest.join('\t'), label: ratingClass(value) });
  }
  return out;
}
