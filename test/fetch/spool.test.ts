import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTroveError } from '../../core/errors.ts';
import { SpoolWriter, emptySpool, spoolFromBuffer } from '../../core/fetch/spool.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-spool-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function collect(s: NodeJS.ReadableStream): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of s) out.push(c as Buffer);
  return Buffer.concat(out);
}

describe('SpoolWriter', () => {
  it('keeps small bodies in memory', async () => {
    const w = new SpoolWriter(dir, 100);
    w.write(Buffer.from('hello '));
    w.write(Buffer.from('world'));
    const s = w.finish();
    expect(s.size).toBe(11);
    expect(s.path).toBeNull();
    expect((await s.read()).toString()).toBe('hello world');
    expect((await s.read(5)).toString()).toBe('hello');
    expect((await collect(s.stream())).toString()).toBe('hello world');
    await s.dispose();
    await s.dispose();
  });

  it('copies chunks so later changes to the source buffer do not leak in', async () => {
    const w = new SpoolWriter(dir, 100);
    const src = Buffer.from('abc');
    w.write(src);
    src.fill(0x78);
    expect((await w.finish().read()).toString()).toBe('abc');
  });

  it('keeps owned chunks that are most of their buffer as they are, and copies small views', async () => {
    const w = new SpoolWriter(dir, 1024 * 1024);
    const read = Buffer.alloc(64 * 1024, 0x61); // a socket read: its own ArrayBuffer
    const whole = new Uint8Array(400 * 1024).fill(0x62);
    const view = Buffer.from(whole.buffer, 390 * 1024, 10 * 1024); // the last bytes after a head: copied
    const small = Buffer.alloc(2000, 0x63); // a small page's read: copied
    w.writeOwned(read);
    w.writeOwned(view);
    w.writeOwned(small);
    const s = w.finish();
    const pieces = s.buffers()!;
    expect(pieces).toHaveLength(3);
    expect(pieces[0]!.buffer).toBe(read.buffer);
    expect(pieces[1]!.buffer).not.toBe(whole.buffer);
    expect(pieces[2]!.buffer).not.toBe(small.buffer);
    expect(Buffer.concat(pieces as Buffer[]).equals(Buffer.concat([read, view, small]))).toBe(true);
    expect((await s.read()).equals(Buffer.concat([read, view, small]))).toBe(true);
  });

  it('hands out its pieces in memory, none once spooled to a file', async () => {
    const w = new SpoolWriter(dir, 10);
    w.write(Buffer.from('0123456789abc'));
    const s = w.finish();
    expect(s.path).not.toBeNull();
    expect(s.buffers()).toBeNull();
    await s.dispose();
  });

  it('spills to a file past the memory threshold and removes it on dispose', async () => {
    const w = new SpoolWriter(dir, 1000);
    const parts = [Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b'), Buffer.alloc(5000, 'c')];
    for (const p of parts) w.write(p);
    const s = w.finish();
    const all = Buffer.concat(parts);
    expect(s.size).toBe(all.length);
    expect(s.path).not.toBeNull();
    expect(fs.statSync(s.path as string).size).toBe(all.length);
    expect((await s.read()).equals(all)).toBe(true);
    expect((await s.read(700)).equals(all.subarray(0, 700))).toBe(true);
    expect((await collect(s.stream())).equals(all)).toBe(true);
    await s.dispose();
    expect(fs.existsSync(s.path as string)).toBe(false);
    expect(() => s.stream()).toThrow(expect.objectContaining({ code: 'SPOOL_DISPOSED' }));
  });

  it('reports an unwritable spool directory as FETCH_SPOOL_FAILED', () => {
    const w = new SpoolWriter(path.join(dir, 'missing', 'deeper'), 10);
    let caught: unknown;
    try {
      w.write(Buffer.alloc(100));
    } catch (err) {
      caught = err;
    }
    expect(isTroveError(caught, 'FETCH_SPOOL_FAILED')).toBe(true);
  });

  it('has an empty spool for bodiless responses', async () => {
    const s = emptySpool();
    expect(s.size).toBe(0);
    expect((await s.read()).length).toBe(0);
  });

  it('frees its own pieces on dispose (kept reads whole, its copies), never a caller buffer', async () => {
    const w = new SpoolWriter(dir, 1024 * 1024);
    // A socket read whose first bytes were the response head: the body piece is a view of most of it.
    const read = Buffer.alloc(64 * 1024, 0x61);
    const bodyView = read.subarray(300);
    const copied = Buffer.alloc(40 * 1024, 0x62); // written, not owned: the spool copies it (past Node's pool)
    const small = Buffer.alloc(100, 0x63); // copied into Node's pool: left to the collector
    w.writeOwned(bodyView);
    w.write(copied);
    w.write(small);
    const s = w.finish();
    const [p0, p1, p2] = s.buffers()!;
    expect(p0!.buffer).toBe(read.buffer);
    await s.dispose();
    expect(read.buffer.detached).toBe(true);
    expect(bodyView.length).toBe(0);
    expect((p1!.buffer as ArrayBuffer).detached).toBe(true);
    expect(copied.buffer.detached).toBe(false);
    expect(p2!.length).toBe(100);
    expect((p2!.buffer as ArrayBuffer).detached).toBe(false);
  });

  it('leaves alone a buffer it was given (spoolFromBuffer) or lent out whole (read of one piece)', async () => {
    const given = Buffer.alloc(50_000, 0x64);
    const s1 = spoolFromBuffer(given);
    await s1.dispose();
    expect(given.length).toBe(50_000);

    const w = new SpoolWriter(dir, 1024 * 1024);
    w.writeOwned(Buffer.alloc(64 * 1024, 0x65));
    const s2 = w.finish();
    const lent = await s2.read();
    await s2.dispose();
    expect(lent.length).toBe(64 * 1024);
    expect(lent.every((b) => b === 0x65)).toBe(true);
  });
});
