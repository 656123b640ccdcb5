/**
 * Errors and warnings of the WARC/ARC reader.
 *
 * A reader error is fatal for the rest of the file: the iterator has already yielded every good
 * record before the broken point, then throws a WarcReadError whose `details.offset` is the byte
 * offset in the file (compressed offset for gzip files) where reading could not go on.
 *
 * A warning is a defect the reader can step over (a missing record separator, junk between
 * records, a record sharing a gzip member with others). It goes to the `onWarning` callback and
 * reading continues; `trove check` decides how serious each one is.
 */
import type { WarcReadErrorCode } from '../api/error-codes.ts';
import { TroveError } from '../errors.ts';

/** The reader's fatal codes, listed with what each means in the error catalogue. */
export type { WarcReadErrorCode } from '../api/error-codes.ts';

export class WarcReadError extends TroveError {
  declare readonly code: WarcReadErrorCode;

  constructor(code: WarcReadErrorCode, message: string, details: { offset: number } & Record<string, unknown>, options?: { cause?: unknown }) {
    super(code, message, details, options);
    this.name = 'WarcReadError';
  }

  get offset(): number {
    return this.details.offset as number;
  }
}

/** A failed read of the file itself (EIO, a file that went away) as a typed error. */
export function readFailed(err: unknown, offset: number): WarcReadError {
  if (err instanceof WarcReadError) return err;
  return new WarcReadError('WARC_OPEN_FAILED', `cannot read the file at offset ${offset}: ${(err as Error).message}`, { offset }, { cause: err });
}

/** Codes of non-fatal problems passed to `onWarning`. */
export type WarcWarningCode =
  /** A record does not sit alone in its gzip member (whole-file gzip, or members split records). */
  | 'WARC_NOT_RANDOM_ACCESS'
  /** The record is not followed by exactly CRLF CRLF (missing, LF-only, CR CR LF …). */
  | 'WARC_BAD_SEPARATOR'
  /** Header lines end in something other than CRLF (LF only, CR CR LF). */
  | 'WARC_BAD_LINE_ENDING'
  /** Bytes that are not a record were skipped to reach the next record (Content-Length too small?). */
  | 'WARC_SKIPPED_DATA'
  /** Content-Length missing or not a number: the block is taken as empty. */
  | 'WARC_BAD_CONTENT_LENGTH'
  /** A header line without a colon, or a continuation line with nothing to continue; it is dropped. */
  | 'WARC_BAD_HEADER_LINE'
  /** A version other than WARC/0.17, 0.18, 1.0 or 1.1. */
  | 'WARC_UNKNOWN_VERSION'
  /** An ARC header line with a length that is not a number; the record is taken as empty. */
  | 'ARC_BAD_LENGTH';

export interface WarcReadWarning {
  code: WarcWarningCode;
  message: string;
  /** Byte offset in the file (compressed offset for gzip files). */
  offset: number;
}

export type WarningHandler = (w: WarcReadWarning) => void;
