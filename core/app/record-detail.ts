/**
 * Record detail for the WARC browser. TEMPORARY: waits for core/archive's record detail module
 * (record-query-detail.ts); until it lands the command answers NOT_AVAILABLE, never made-up data.
 */
import type { RecordDetail } from '../api/app-types.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';

export function recordDetail(_archive: Archive, id: number): RecordDetail {
  throw new TroveError('NOT_AVAILABLE', `record detail is not available yet (record ${id})`);
}
