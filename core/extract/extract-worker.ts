/**
 * The worker-thread side of ExtractPool: receives one document at a time (its body transferred,
 * not copied), runs extractDocument, posts the result back packed (extract-message.ts). Announces
 * itself with `ready` once its modules are loaded, so the pool's per-job clock measures
 * extraction only, not start-up.
 */
import { parentPort } from 'node:worker_threads';
import { releaseBuffer } from '../formats/release-buffer.ts';
import { extractDocument } from './extract-document.ts';
import type { DocumentInput } from './extraction-types.ts';
import { packExtraction } from './extract-message.ts';
import type { PackedExtraction } from './extract-message.ts';

export interface WorkerJob {
  id: number;
  input: DocumentInput;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: PackedExtraction }
  | { type: 'failed'; id: number; error: string };

const port = parentPort;
if (port === null) throw new Error('extract-worker.ts must run in a worker thread');

port.on('message', (job: WorkerJob) => {
  let reply: WorkerMessage;
  // Structured clone turns a Buffer into a plain Uint8Array: view it as a Buffer again, no copy.
  const b = job.input.body as Uint8Array;
  try {
    const body = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    reply = { type: 'result', id: job.id, result: packExtraction(extractDocument({ ...job.input, body })) };
  } catch (err) {
    reply = { type: 'failed', id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
  // The body was moved here for this job alone (the pool transfers its buffer): freed now, not
  // when this thread next collects (issue 20).
  releaseBuffer(b);
});

port.postMessage({ type: 'ready' } satisfies WorkerMessage);
