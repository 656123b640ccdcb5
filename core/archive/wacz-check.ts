/**
 * `trove check` on a WACZ package, at least as strict as py-wacz's `wacz validate` and then some:
 *
 * - the ZIP container (wacz-check-zip.ts: local vs central headers, duplicates, overlaps);
 * - `datapackage.json`: `profile`, `wacz_version`, each resource's `name` (Frictionless:
 *   `^([-a-z0-9._/])+$`, unique), `path`, `bytes` and `hash`, and every entry listed (py-wacz
 *   `check_file_paths`); every resource's size, hash and CRC-32 (through the bounded reader);
 * - `datapackage-digest.json`: the hash of datapackage.json, and a signature when there is one
 *   (anonymous: the export's own verifier; domain: the certificate chain up to a root Node trusts);
 * - the index (plain CDXJ, or ZipNum `index.cdx.gz` + `index.idx` with each block's offset,
 *   length, digest and first key): every line names a WARC in the package and a record that starts
 *   at its offset, with its length and payload digest; records left out of the index are counted;
 * - `pages/pages.jsonl` (and `extraPages.jsonl`): the `json-pages-1.0` header, and a url and a ts
 *   on every page;
 * - every WARC inside, exactly as `trove check` checks a WARC file.
 *
 * Problems name `<package>!/<entry>`; offsets are within that entry (the local header's offset in
 * the .wacz for container problems).
 *
 * Memory and disk stay flat however big the package (issue 39: WACZ of tens of gigabytes). A
 * STORED WARC (as WACZ asks, and as `trove export --wacz` writes) is checked and indexed where it
 * lies, as a byte range of the package (file-range.ts): no copy. Its size and CRC-32 are checked
 * by the hash pass over the resources (through the bounded reader), or by a pass of their own
 * when the hash pass did not read it (an unlisted WARC). A DEFLATED WARC (rare) is copied out to
 * the temporary folder through the bounded reader, then checked and indexed there. The ZipNum
 * blocks are read one by one, by range, the same way. The capture records the index is checked
 * against are kept in a temporary SQLite file (wacz-check-records.ts), not in memory, and the
 * pages file is read line by line.
 *
 * A package of gigabytes takes minutes: progress goes to `onRecord` as a position in the package
 * (the hash pass over every resource, then each WARC checked and indexed, and copied out first
 * when deflated, each pass weighed by its bytes, scaled to the file's size), so the CLI's one bar
 * over the files it checks stays one bar with one ETA. Aborting `signal` stops the check
 * (CANCELLED) wherever it is; the temporary folder goes with it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { isCancelled, isTroveError, throwIfCancelled } from '../errors.ts';
import { verifyAnonymousSignature } from './wacz-sign.ts';
import type { CheckOptions, CheckProblem, CheckResult } from '../warc/check-warc.ts';
import { checkWarcFile } from '../warc/check-warc.ts';
import { indexFile } from './cdxj-index.ts';
import { compareBytewise } from './cdxj.ts';
import { parseCdxjLine, readCdxjLines } from './cdxj-read.ts';
import type { CdxjLine } from './cdxj-read.ts';
import { checkZipStructure } from './wacz-check-zip.ts';
import { CheckRecordStore } from './wacz-check-records.ts';
import type { FileRange } from '../warc/file-range.ts';
import { openWacz, verifyWacz, waczWarcEntries } from './wacz-read.ts';
import type { WaczEntry, WaczPackage } from './wacz-read.ts';

/** Frictionless data package rule for resource names. */
const RESOURCE_NAME = /^([-a-z0-9._/])+$/;
const KNOWN_VERSIONS = new Set(['1.0.0', '1.1.0', '1.1.1']);
/** How much of a pages file line, or an idx/digest file, is read; and the largest ZipNum block read. */
const MAX_SMALL_ENTRY = 64 << 20;

type Level = 'error' | 'warning';

export async function checkWaczFile(file: string, opts: CheckOptions = {}): Promise<CheckResult> {
  const result: CheckResult = { file, records: 0, errors: 0, warnings: 0, problems: [], valid: true, chunkedDigests: { entity: 0, transfer: 0 }, credentials: 0 };
  const max = opts.maxProblems ?? 10_000;
  const push = (p: CheckProblem): void => {
    if (p.level === 'error') result.errors++;
    else result.warnings++;
    if (result.problems.length < max) result.problems.push(p);
    opts.onProblem?.(p);
  };
  const report = (entry: string | null, offset: number, level: Level, code: string, message: string): void =>
    push({ file: entry === null ? file : `${file}!/${entry}`, offset, level, code, message });

  const zip = await checkZipStructure(file);
  for (const p of zip.problems) report(p.entry, p.offset, p.level, p.code, p.message);
  if (zip.fatal) return finish(result);

  let pkg: WaczPackage;
  try {
    pkg = await openWacz(file);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    // Unsafe names were reported entry by entry above.
    if (err.code !== 'WACZ_UNSAFE_PATH' || !zip.problems.some((p) => p.code === 'WACZ_UNSAFE_PATH')) {
      report(typeof err.details.entry === 'string' ? err.details.entry : null, 0, 'error', err.code, err.message);
    }
    return finish(result);
  }
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'trove-check-wacz-'));
  let records: CheckRecordStore | null = null;
  try {
    records = new CheckRecordStore(path.join(tmp, 'records.sqlite'));
    const work = new PackageWork(pkg, (await fsp.stat(file)).size, opts.onRecord);
    const warcIds = new Map(waczWarcEntries(pkg).map((e, i) => [path.posix.basename(e.name), i + 1]));
    const ctx: Ctx = { pkg, report, push, result, tmp, unreadable: new Set(), intact: new Set(), work, signal: opts.signal, records, warcIds, copies: 0 };
    await checkDatapackage(ctx);
    await checkDigestFile(ctx);
    await checkWarcs(ctx, opts);
    throwIfCancelled(opts.signal, 'check');
    await checkIndexes(ctx);
    throwIfCancelled(opts.signal, 'check');
    await checkPages(ctx);
  } finally {
    pkg.close();
    records?.close();
    await fsp.rm(tmp, { recursive: true, force: true });
  }
  return finish(result);
}

function finish(result: CheckResult): CheckResult {
  result.valid = result.errors === 0;
  return result;
}

interface Ctx {
  pkg: WaczPackage;
  report: (entry: string | null, offset: number, level: Level, code: string, message: string) => void;
  push: (p: CheckProblem) => void;
  result: CheckResult;
  tmp: string;
  /** Entries already reported as unreadable (bounds, size, CRC): said once, not again by each reader. */
  unreadable: Set<string>;
  /** Entries read whole through the bounded reader, so their size and CRC-32 hold. */
  intact: Set<string>;
  work: PackageWork;
  signal: AbortSignal | undefined;
  /** The WARCs' capture records, for the index and pages checks. */
  records: CheckRecordStore;
  /** Each WARC's number in `records`, by base name (index lines name WARCs by base name). */
  warcIds: Map<string, number>;
  /** Entries copied out so far (names the copies). */
  copies: number;
}

/**
 * How far a package check has got, in bytes of work: every resource hashed once, every WARC
 * entry then checked and indexed (two passes over its bytes; three when deflated, copied out
 * first). Reported as the same share of the package file's size, at most once per MiB of work,
 * never going back.
 */
class PackageWork {
  readonly #fileSize: number;
  #total: number;
  readonly #onPosition: ((offset: number) => void) | undefined;
  #done = 0;
  #reported = 0;
  #position = 0;

  constructor(pkg: WaczPackage, fileSize: number, onPosition: ((offset: number) => void) | undefined) {
    const hashed = pkg.resources.reduce((n, r) => n + (pkg.entry(r.path)?.size ?? 0), 0);
    const warcs = waczWarcEntries(pkg).reduce((n, e) => n + (e.compressionMethod === 0 ? 2 : 3) * e.size, 0);
    this.#fileSize = fileSize;
    this.#total = Math.max(1, hashed + warcs);
    this.#onPosition = onPosition;
  }

  add(bytes: number): void {
    this.#done += bytes;
    if (this.#done - this.#reported < 1 << 20) return;
    this.#reported = this.#done;
    const at = Math.min(this.#fileSize, Math.floor((this.#fileSize * this.#done) / this.#total));
    if (at > this.#position) this.#onPosition?.((this.#position = at));
  }

  /** A pass not foreseen (an entry's CRC pass): more work in all. */
  grow(bytes: number): void {
    this.#total += bytes;
  }

  /** A pass over `size` bytes that reports its offset as it goes: adds only what is new. */
  pass(size: number): { at: (offset: number) => void; end: () => void } {
    let last = 0;
    return {
      at: (offset) => {
        if (offset > last) this.add(offset - last);
        last = Math.max(last, offset);
      },
      end: () => this.add(Math.max(0, size - last)),
    };
  }
}

async function readEntry(ctx: Ctx, entry: WaczEntry, max = MAX_SMALL_ENTRY): Promise<Buffer | null> {
  if (entry.size > max) {
    ctx.report(entry.name, 0, 'error', 'WACZ_ENTRY_TOO_LARGE', `${entry.name} is ${entry.size} bytes; over the ${max}-byte limit for this kind of entry`);
    return null;
  }
  try {
    const parts: Buffer[] = [];
    for await (const c of await ctx.pkg.openEntry(entry)) parts.push(c as Buffer);
    return Buffer.concat(parts);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    unreadable(ctx, entry.name, err.code, err.message);
    return null;
  }
}

function unreadable(ctx: Ctx, entry: string, code: string, message: string): void {
  if (ctx.unreadable.has(entry)) return;
  ctx.unreadable.add(entry);
  ctx.report(entry, 0, 'error', code, message);
}

async function checkDatapackage(ctx: Ctx): Promise<void> {
  const { pkg, report } = ctx;
  const dp = pkg.datapackage;
  const at = (msg: string) => `datapackage.json: ${msg}`;
  if (dp.profile !== 'data-package') report('datapackage.json', 0, 'error', 'WACZ_BAD_DATAPACKAGE', at(`"profile" is ${JSON.stringify(dp.profile)}, not "data-package"`));
  if (pkg.version === null) report('datapackage.json', 0, 'error', 'WACZ_NO_VERSION', at('no "wacz_version"'));
  else if (!KNOWN_VERSIONS.has(pkg.version)) report('datapackage.json', 0, 'warning', 'WACZ_UNKNOWN_VERSION', at(`wacz_version ${JSON.stringify(pkg.version)} is not one this checker knows`));
  if (pkg.version !== null && pkg.version !== '1.0.0' && typeof dp.created !== 'string') report('datapackage.json', 0, 'warning', 'WACZ_NO_CREATED', at('no "created" date'));

  const resources = dp.resources as unknown[];
  if (resources.length === 0) report('datapackage.json', 0, 'error', 'WACZ_BAD_DATAPACKAGE', at('"resources" is empty'));
  const names = new Set<string>();
  const listed = new Set<string>();
  resources.forEach((item, i) => {
    const r = (item ?? {}) as Record<string, unknown>;
    const where = `resources[${i}]${typeof r.path === 'string' ? ` (${r.path})` : ''}`;
    if (typeof r.path === 'string') listed.add(r.path);
    if (r.name === undefined) {
      // Frictionless infers a missing name from the path; WACZ 1.0.0 packages from py-wacz have none.
      if (pkg.version !== '1.0.0') report('datapackage.json', 0, 'warning', 'WACZ_RESOURCE_NO_NAME', at(`${where} has no "name"`));
    } else if (typeof r.name !== 'string' || !RESOURCE_NAME.test(r.name)) {
      report('datapackage.json', 0, 'error', 'WACZ_BAD_RESOURCE_NAME', at(`${where} name ${JSON.stringify(r.name)} does not match ^([-a-z0-9._/])+$ (lower case, digits, - . _ /)`));
    } else if (names.has(r.name)) {
      report('datapackage.json', 0, 'error', 'WACZ_BAD_RESOURCE_NAME', at(`${where} name ${JSON.stringify(r.name)} is used twice`));
    } else names.add(r.name);
    const stats = (r.stats ?? {}) as Record<string, unknown>;
    if (typeof r.bytes !== 'number' && typeof stats.bytes !== 'number') report('datapackage.json', 0, 'error', 'WACZ_RESOURCE_NO_BYTES', at(`${where} has no "bytes"`));
    if (typeof r.hash !== 'string' && typeof stats.hash !== 'string') report('datapackage.json', 0, 'error', 'WACZ_RESOURCE_NO_HASH', at(`${where} has no "hash"`));
  });
  for (const check of await verifyWacz(pkg, { onBytes: (n) => ctx.work.add(n), ...(ctx.signal ? { signal: ctx.signal } : {}) })) {
    // Read to its end through the bounded reader: its size and CRC-32 hold, whatever its hash.
    if (check.ok || check.code === 'WACZ_HASH_MISMATCH') ctx.intact.add(check.path);
    if (check.ok) continue;
    if (check.code!.startsWith('WACZ_ENTRY_')) unreadable(ctx, check.path, check.code!, check.message!);
    else report(check.path, 0, 'error', check.code!, check.message!);
  }
  // Every file in the package is listed, but the datapackage and its digest (py-wacz check_file_paths).
  for (const e of pkg.entries) {
    if (e.name !== 'datapackage.json' && e.name !== 'datapackage-digest.json' && !listed.has(e.name)) {
      report(e.name, 0, 'error', 'WACZ_ENTRY_NOT_LISTED', `${e.name} is in the package but not listed in datapackage.json`);
    }
  }
  // WARCs and the ZipNum index are read by byte range: WACZ asks for them STORED.
  for (const e of pkg.entries) {
    if (e.compressionMethod !== 0 && (e.name.startsWith('archive/') || e.name.endsWith('.cdx.gz'))) {
      report(e.name, 0, 'warning', 'WACZ_ENTRY_COMPRESSED', `${e.name} is compressed in the ZIP; WACZ readers fetch it by byte range and expect it stored`);
    }
  }
  if (waczWarcEntries(pkg).length === 0) report(null, 0, 'error', 'WACZ_NO_WARCS', 'no WARC file under archive/');
  if (!pkg.entry('pages/pages.jsonl')) report(null, 0, 'error', 'WACZ_NO_PAGES', 'no pages/pages.jsonl');
}

async function checkDigestFile(ctx: Ctx): Promise<void> {
  const { pkg, report } = ctx;
  const digestEntry = pkg.entry('datapackage-digest.json');
  if (!digestEntry) {
    if (pkg.version !== null && pkg.version !== '1.0.0') report(null, 0, 'warning', 'WACZ_NO_DIGEST_FILE', 'no datapackage-digest.json');
    return;
  }
  const name = digestEntry.name;
  const text = await readEntry(ctx, digestEntry);
  const dpBytes = await readEntry(ctx, pkg.entry('datapackage.json')!);
  if (!text || !dpBytes) return;
  let digest: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    digest = parsed as Record<string, unknown>;
  } catch (err) {
    report(name, 0, 'error', 'WACZ_BAD_DIGEST_FILE', `${name} is not a JSON object: ${(err as Error).message}`);
    return;
  }
  if (digest.path !== 'datapackage.json') report(name, 0, 'error', 'WACZ_BAD_DIGEST_FILE', `${name}: "path" is ${JSON.stringify(digest.path)}, not "datapackage.json"`);
  const m = typeof digest.hash === 'string' ? /^(sha-?256|sha-?384|sha-?512):([0-9a-f]+)$/i.exec(digest.hash) : null;
  if (!m) {
    report(name, 0, 'error', 'WACZ_BAD_DIGEST_FILE', `${name}: "hash" ${JSON.stringify(digest.hash)} is not sha256:<hex>`);
    return;
  }
  const actual = crypto.createHash(m[1]!.toLowerCase().replace('-', '')).update(dpBytes).digest('hex');
  if (actual !== m[2]!.toLowerCase()) {
    report(name, 0, 'error', 'WACZ_DIGEST_MISMATCH', `${name} says datapackage.json hashes to ${m[2]}; it hashes to ${actual}`);
  }
  const signed = digest.signedData;
  if (signed === undefined) return;
  if (signed === null || typeof signed !== 'object') {
    report(name, 0, 'error', 'WACZ_BAD_SIGNATURE', `${name}: "signedData" is not an object`);
    return;
  }
  const why = await signatureProblem(signed as Record<string, unknown>, String(digest.hash), pkg.datapackage.created);
  if (why) report(name, 0, 'error', why.code, `${name}: ${why.message}`);
}

/**
 * Why a signature does not hold, or null. Anonymous signatures (a `publicKey`) go to the export's
 * verifier. Domain signatures (WACZ Signing 0.1.0: `domain`, `domainCert` PEM chain, ECDSA over
 * the hash string) are checked against the leaf certificate's key, the chain link by link, the
 * domain against the leaf, `created` inside the leaf's validity, and the chain's top against the
 * roots Node trusts. The RFC 3161 time-stamp (`timeSignature`) is not checked.
 */
async function signatureProblem(s: Record<string, unknown>, hash: string, created: unknown): Promise<{ code: string; message: string } | null> {
  const bad = (message: string) => ({ code: 'WACZ_BAD_SIGNATURE', message });
  if (s.hash !== hash) return bad(`the signed hash ${JSON.stringify(s.hash)} is not the datapackage hash ${hash}`);
  if (typeof created === 'string' && s.created !== created) return bad(`signed "created" ${JSON.stringify(s.created)} differs from datapackage.json's ${created}`);
  if (typeof s.signature !== 'string') return bad('no "signature"');
  if (typeof s.publicKey === 'string') {
    const ok = await verifyAnonymousSignature({ hash, signature: s.signature, publicKey: s.publicKey }).catch(() => false);
    return ok ? null : bad('the anonymous signature does not verify with its public key');
  }
  if (typeof s.domainCert !== 'string' || typeof s.domain !== 'string') return bad('neither "publicKey" nor "domain" and "domainCert"');
  let chain: crypto.X509Certificate[];
  try {
    chain = (s.domainCert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new crypto.X509Certificate(pem));
  } catch (err) {
    return bad(`"domainCert" does not parse: ${(err as Error).message}`);
  }
  const leaf = chain[0];
  if (!leaf) return bad('"domainCert" holds no certificate');
  const sig = Buffer.from(s.signature, 'base64');
  const verified =
    crypto.verify('sha256', Buffer.from(hash, 'ascii'), leaf.publicKey, sig) ||
    crypto.verify('sha256', Buffer.from(hash, 'ascii'), { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, sig);
  if (!verified) return bad(`the signature does not verify with the certificate of ${leaf.subject.replace(/\n/g, ', ')}`);
  if (!leaf.checkHost(s.domain)) return bad(`the certificate is not for ${s.domain}`);
  if (typeof s.created === 'string') {
    const t = Date.parse(s.created);
    if (!(t >= Date.parse(leaf.validFrom) && t <= Date.parse(leaf.validTo))) return bad(`signed at ${s.created}, outside the certificate's validity (${leaf.validFrom} – ${leaf.validTo})`);
  }
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i]!.checkIssued(chain[i + 1]!) || !chain[i]!.verify(chain[i + 1]!.publicKey)) {
      return { code: 'WACZ_SIGNATURE_UNTRUSTED', message: `certificate ${i + 1} of the chain is not issued by the next one` };
    }
  }
  const top = chain[chain.length - 1]!;
  // Trusted when the top is issued by a root Node trusts, or when a certificate of the chain is a
  // trusted root itself or a cross-signed copy of one (same subject and key: ISRG Root X1 signed by
  // the retired DST Root CA X3 is the usual case).
  const roots = tls.rootCertificates.map((pem) => new crypto.X509Certificate(pem));
  const spki = (c: crypto.X509Certificate) => c.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const trusted =
    roots.some((root) => top.checkIssued(root) && top.verify(root.publicKey)) ||
    chain.some((c) => roots.some((root) => root.subject === c.subject && spki(root) === spki(c)));
  if (!trusted) return { code: 'WACZ_SIGNATURE_UNTRUSTED', message: `the certificate chain ends at ${top.issuer.replace(/\n/g, ', ')}, not at a trusted root` };
  return null;
}

/** Check and index every WARC inside, keeping its capture records for the index checks. */
async function checkWarcs(ctx: Ctx, opts: CheckOptions): Promise<void> {
  for (const entry of waczWarcEntries(ctx.pkg)) {
    const place = await placeOf(ctx, entry, (n) => ctx.work.add(n));
    if (!place) continue;
    try {
      await checkWarc(ctx, opts, entry, place);
    } finally {
      if (place.copied) await fsp.rm(place.file, { force: true });
    }
  }
}

/** Where an entry's bytes can be read by range: a file, and the range of it when not the whole file. */
interface Place {
  file: string;
  range?: FileRange;
  /** A copy in the temporary folder (to remove once read). */
  copied: boolean;
}

/**
 * A STORED entry is read in place, once its size and CRC-32 are known to hold (entryIntact); a
 * DEFLATED one is copied out to the temporary folder through the bounded reader, `onBytes` told of
 * each chunk. Null when the entry cannot be read (reported once).
 */
async function placeOf(ctx: Ctx, entry: WaczEntry, onBytes: (n: number) => void): Promise<Place | null> {
  if (entry.compressionMethod === 0 && !entry.encrypted) {
    if (!(await entryIntact(ctx, entry))) return null;
    return { file: ctx.pkg.path, range: { start: entry.dataOffset, end: entry.dataOffset + entry.size }, copied: false };
  }
  const copy = path.join(ctx.tmp, `${++ctx.copies}-${path.posix.basename(entry.name)}`);
  const { signal } = ctx;
  try {
    const counted = async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        throwIfCancelled(signal, 'check');
        onBytes(chunk.length);
        yield chunk;
      }
    };
    await pipeline(await ctx.pkg.openEntry(entry), counted, fs.createWriteStream(copy));
  } catch (err) {
    await fsp.rm(copy, { force: true });
    if (!isTroveError(err) || isCancelled(err)) throw err;
    unreadable(ctx, entry.name, err.code, err.message);
    return null;
  }
  return { file: copy, copied: true };
}

/**
 * Whether an entry's bytes hold what its headers declare (size, CRC-32), read through the bounded
 * reader: known from the hash pass, or found by a pass of its own here. False when not (reported).
 */
async function entryIntact(ctx: Ctx, entry: WaczEntry): Promise<boolean> {
  if (ctx.unreadable.has(entry.name)) return false;
  if (ctx.intact.has(entry.name)) return true;
  ctx.work.grow(entry.size);
  try {
    for await (const chunk of await ctx.pkg.openEntry(entry)) {
      throwIfCancelled(ctx.signal, 'check');
      ctx.work.add((chunk as Buffer).length);
    }
  } catch (err) {
    if (!isTroveError(err) || isCancelled(err)) throw err;
    unreadable(ctx, entry.name, err.code, err.message);
    return false;
  }
  ctx.intact.add(entry.name);
  return true;
}

/** One WARC: checked as `trove check` checks a WARC file, then indexed into `ctx.records`. */
async function checkWarc(ctx: Ctx, opts: CheckOptions, entry: WaczEntry, place: Place): Promise<void> {
  const { work, signal } = ctx;
  const range = place.range ? { range: place.range } : {};
  const inner = `${ctx.result.file}!/${entry.name}`;
  const checked = work.pass(entry.size);
  const r = await checkWarcFile(place.file, {
    maxProblems: opts.maxProblems ?? 10_000,
    onProblem: (p) => ctx.push({ ...p, file: inner }),
    onRecord: checked.at,
    ...(signal ? { signal } : {}),
    ...range,
  });
  checked.end();
  ctx.result.records += r.records;
  ctx.result.chunkedDigests.entity += r.chunkedDigests.entity;
  ctx.result.chunkedDigests.transfer += r.chunkedDigests.transfer;
  ctx.result.credentials += r.credentials;
  const filename = path.posix.basename(entry.name);
  const warc = ctx.warcIds.get(filename)!;
  const indexed = work.pass(entry.size);
  try {
    for await (const e of indexFile(place.file, { filename, ...range })) {
      throwIfCancelled(signal, 'check');
      indexed.at(e.offset);
      ctx.records.add(warc, e.offset, { length: e.length, digest: e.digest ?? null, url: e.url });
    }
  } catch (err) {
    if (!isTroveError(err) || isCancelled(err)) throw err; // the WARC check has reported the break
  }
  indexed.end();
}

/** `sha1:ABC`, `ABC`, `sha-256:abc` and `sha256:abc` compare equal where they name one digest. */
function normDigest(d: string): string {
  const m = /^([A-Za-z0-9-]+):(.*)$/.exec(d);
  const label = m ? m[1]!.toLowerCase().replace('-', '') : 'sha1';
  const value = m ? m[2]! : d;
  return `${label}:${label === 'sha1' ? value.toUpperCase() : value.toLowerCase()}`;
}

async function checkIndexes(ctx: Ctx): Promise<void> {
  const { pkg, report } = ctx;
  const idx = pkg.entry('indexes/index.idx');
  const plain = pkg.entries.filter((e) => e.name.startsWith('indexes/') && /\.(cdxj|cdx)$/i.test(e.name));
  if (!idx && plain.length === 0) {
    report(null, 0, 'error', 'WACZ_NO_INDEX', 'no index: neither indexes/index.cdx.gz with indexes/index.idx nor an indexes/*.cdxj file');
    return;
  }
  const checkLine = lineChecker(ctx);
  for (const e of plain) {
    try {
      const done = checkLine(e.name);
      for await (const line of readCdxjLines(await pkg.openEntry(e), e.name)) done(line, line.offset);
    } catch (err) {
      if (!isTroveError(err)) throw err;
      report(e.name, typeof err.details.offset === 'number' ? err.details.offset : 0, 'error', err.code, err.message);
    }
  }
  if (idx) await checkZipNum(ctx, idx, checkLine);
  const { total, unseen } = ctx.records.counts();
  if (unseen > 0) report(null, 0, 'warning', 'WACZ_RECORDS_NOT_INDEXED', `${unseen} of ${total} capture records in the WARCs are not in the index`);
}

/** A function per index file that checks its lines, in order, against the records. */
function lineChecker(ctx: Ctx): (file: string) => (line: CdxjLine, offset: number) => void {
  const warcNames = ctx.warcIds;
  // Lines into a WARC that could not be read were not checkable: that WARC's problem says why.
  const unread = new Set(waczWarcEntries(ctx.pkg).filter((e) => ctx.unreadable.has(e.name)).map((e) => path.posix.basename(e.name)));
  return (file) => {
    let previous: string | null = null;
    return (line, offset) => {
      const key = `${line.urlkey} ${line.timestamp}`;
      const j = line.json;
      const where = `line ${line.line}`;
      if (previous !== null && compareBytewise(previous, key) > 0) {
        ctx.report(file, offset, 'error', 'WACZ_INDEX_UNSORTED', `${where}: ${key} sorts before the line above it; readers binary-search the index`);
      }
      previous = key;
      const filename = typeof j.filename === 'string' ? j.filename : null;
      const off = Number(j.offset);
      const length = Number(j.length);
      if (filename === null || !warcNames.has(path.posix.basename(filename))) {
        ctx.report(file, offset, 'error', 'WACZ_INDEX_BAD_FILENAME', `${where}: filename ${JSON.stringify(j.filename)} is not a WARC in archive/`);
        return;
      }
      if (unread.has(path.posix.basename(filename))) return;
      const rec = Number.isInteger(off) ? ctx.records.take(warcNames.get(path.posix.basename(filename))!, off) : undefined;
      if (!rec) {
        ctx.report(file, offset, 'error', 'WACZ_INDEX_BAD_OFFSET', `${where}: no capture record starts at offset ${JSON.stringify(j.offset)} of ${filename}`);
        return;
      }
      // An uncompressed record's length is given with or without its closing CRLF CRLF.
      if (!(length === rec.length || length === rec.length + 4)) {
        ctx.report(file, offset, 'error', 'WACZ_INDEX_BAD_LENGTH', `${where}: length ${JSON.stringify(j.length)} for the record at ${off} of ${filename}, which is ${rec.length} bytes`);
      }
      if (typeof j.digest === 'string' && rec.digest !== null && normDigest(j.digest) !== normDigest(rec.digest)) {
        ctx.report(file, offset, 'error', 'WACZ_INDEX_BAD_DIGEST', `${where}: digest ${j.digest}, the record's payload digest is ${rec.digest}`);
      }
      if (typeof j.url === 'string' && j.url !== rec.url) {
        ctx.report(file, offset, 'warning', 'WACZ_INDEX_URL_MISMATCH', `${where}: url ${j.url}, the record's target is ${rec.url}`);
      }
    };
  };
}

/** ZipNum: each idx line's block of index.cdx.gz (offset, length, digest, first key), then its lines. */
async function checkZipNum(ctx: Ctx, idx: WaczEntry, checkLine: ReturnType<typeof lineChecker>): Promise<void> {
  const { pkg, report } = ctx;
  const idxText = await readEntry(ctx, idx);
  if (!idxText) return;
  const lines = idxText.toString('utf8').split('\n');
  let cdxName = 'indexes/index.cdx.gz';
  const meta = lines[0]?.startsWith('!meta') ? lines[0] : null;
  if (meta) {
    try {
      const j = JSON.parse(meta.slice(meta.indexOf('{'))) as { format?: unknown; filename?: unknown };
      if (j.format !== 'cdxj-gzip-1.0') report(idx.name, 0, 'warning', 'WACZ_ZIPNUM_FORMAT', `!meta format ${JSON.stringify(j.format)}, expected "cdxj-gzip-1.0"`);
      if (typeof j.filename === 'string') cdxName = `indexes/${j.filename}`;
    } catch {
      report(idx.name, 0, 'error', 'WACZ_ZIPNUM_BAD_LINE', 'line 1: the !meta line\'s JSON does not parse');
    }
  }
  const cdx = pkg.entry(cdxName);
  if (!cdx) {
    report(idx.name, 0, 'error', 'WACZ_NO_INDEX', `${idx.name} points to ${cdxName}, which is not in the package`);
    return;
  }
  // Read block by block, by range: in place when STORED (as WACZ asks), from a copy when not.
  const place = await placeOf(ctx, cdx, () => undefined);
  if (!place) return;
  const blocks = await fsp.open(place.file, 'r');
  try {
    await checkZipNumBlocks(ctx, idx, lines, cdx, { file: blocks, start: place.range?.start ?? 0 }, checkLine);
  } finally {
    await blocks.close();
    if (place.copied) await fsp.rm(place.file, { force: true });
  }
}

/** Bytes [at, at + length) of an entry that starts at `start` of an open file. */
async function readBlock(from: { file: fsp.FileHandle; start: number }, at: number, length: number): Promise<Buffer> {
  const block = Buffer.allocUnsafe(length);
  for (let got = 0; got < length; ) {
    const { bytesRead } = await from.file.read(block, got, length - got, from.start + at + got);
    if (bytesRead === 0) return block.subarray(0, got); // the file shrank under us
    got += bytesRead;
  }
  return block;
}

/** Each idx line's block: inside the entry, after the one before, its digest, its first key, its lines. */
async function checkZipNumBlocks(
  ctx: Ctx,
  idx: WaczEntry,
  lines: string[],
  cdx: WaczEntry,
  from: { file: fsp.FileHandle; start: number },
  checkLine: ReturnType<typeof lineChecker>,
): Promise<void> {
  const { report } = ctx;
  const done = checkLine(cdx.name);
  let covered = 0;
  let offset = 0;
  for (let i = 0; i < lines.length; offset += Buffer.byteLength(lines[i]!) + 1, i++) {
    const parsed = parseIdxLine(lines[i]!);
    if (parsed === null) continue;
    if (typeof parsed === 'string') {
      report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_LINE', `line ${i + 1}: ${parsed}`);
      continue;
    }
    const at = Number(parsed.json.offset);
    const length = Number(parsed.json.length);
    const where = `line ${i + 1}`;
    if (!Number.isInteger(at) || !Number.isInteger(length) || at < 0 || length <= 0 || at + length > cdx.size) {
      report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_BLOCK', `${where}: block ${parsed.json.offset}+${parsed.json.length} is not inside ${cdx.name} (${cdx.size} bytes)`);
      continue;
    }
    if (length > MAX_SMALL_ENTRY) {
      report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_BLOCK', `${where}: a block of ${length} bytes; over the ${MAX_SMALL_ENTRY}-byte limit for one block`);
      continue;
    }
    if (at !== covered) report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_BLOCK', `${where}: block starts at ${at}, the previous one ended at ${covered}`);
    covered = at + length;
    throwIfCancelled(ctx.signal, 'check');
    const block = await readBlock(from, at, length);
    if (typeof parsed.json.digest === 'string') {
      const m = /^(sha-?256|sha-?1):([0-9a-f]+)$/i.exec(parsed.json.digest);
      const actual = m ? crypto.createHash(m[1]!.toLowerCase().replace('-', '')).update(block).digest('hex') : null;
      if (!m || actual !== m[2]!.toLowerCase()) report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_DIGEST', `${where}: block digest ${parsed.json.digest}, the block hashes to sha256:${crypto.createHash('sha256').update(block).digest('hex')}`);
    }
    let text: string;
    try {
      text = zlib.gunzipSync(block, { maxOutputLength: 256 << 20 }).toString('utf8');
    } catch (err) {
      report(cdx.name, at, 'error', 'WACZ_ZIPNUM_BAD_BLOCK', `the block at ${at} (${idx.name} ${where}) is not one gzip member: ${(err as Error).message}`);
      continue;
    }
    const blockLines = text.split('\n');
    let lineOffset = 0;
    let first = true;
    for (let k = 0; k < blockLines.length; lineOffset += Buffer.byteLength(blockLines[k]!) + 1, k++) {
      try {
        const line = parseCdxjLine(blockLines[k]!, { line: k + 1, offset: lineOffset }, `${cdx.name} block at ${at}`);
        if (!line) continue;
        if (first && `${line.urlkey} ${line.timestamp}` !== `${parsed.urlkey} ${parsed.timestamp}`) {
          report(idx.name, offset, 'error', 'WACZ_ZIPNUM_BAD_KEY', `${where}: key ${parsed.urlkey} ${parsed.timestamp}, the block starts with ${line.urlkey} ${line.timestamp}`);
        }
        first = false;
        done(line, at);
      } catch (err) {
        if (!isTroveError(err)) throw err;
        report(cdx.name, at, 'error', err.code, err.message);
      }
    }
  }
  if (covered !== cdx.size) report(idx.name, 0, 'error', 'WACZ_ZIPNUM_BAD_BLOCK', `the blocks listed cover ${covered} of the ${cdx.size} bytes of ${cdx.name}`);
}

/** An idx line (`urlkey timestamp {"offset":…,"length":…}`; no url, unlike CDXJ), null for `!meta`/blank, or why it is bad. */
function parseIdxLine(text: string): { urlkey: string; timestamp: string; json: Record<string, unknown> } | string | null {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (t.trim() === '' || t.startsWith('!')) return null;
  const m = /^(\S+) (\d{4,14}) (\{.*\})\s*$/.exec(t);
  if (!m) return 'expected "urlkey timestamp {json}"';
  try {
    const json: unknown = JSON.parse(m[3]!);
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return 'its JSON is not an object';
    return { urlkey: m[1]!, timestamp: m[2]!, json: json as Record<string, unknown> };
  } catch (err) {
    return `its JSON does not parse (${(err as Error).message})`;
  }
}

/** pages.jsonl: the json-pages-1.0 header line, then a url and a ts on every page; read line by line. */
async function checkPages(ctx: Ctx): Promise<void> {
  const captured = ctx.records.counts().total > 0;
  for (const name of ['pages/pages.jsonl', 'pages/extraPages.jsonl']) {
    const entry = ctx.pkg.entry(name);
    if (!entry || !(await entryIntact(ctx, entry))) continue;
    let notIndexed = 0;
    let i = 0;
    let offset = 0;
    try {
      for await (const line of entryLines(await ctx.pkg.openEntry(entry))) {
        if (Buffer.byteLength(line) > MAX_SMALL_ENTRY) {
          ctx.report(name, offset, 'error', 'WACZ_ENTRY_TOO_LARGE', `line ${i + 1} is over the ${MAX_SMALL_ENTRY}-byte limit for a line of ${name}`);
          break;
        }
        const url = checkPageLine(ctx, name, line, i, offset);
        if (url !== null && captured && !ctx.records.hasUrl(url)) notIndexed++;
        offset += Buffer.byteLength(line) + 1;
        i++;
      }
    } catch (err) {
      if (!isTroveError(err) || isCancelled(err)) throw err;
      unreadable(ctx, entry.name, err.code, err.message);
      continue;
    }
    if (notIndexed > 0) ctx.report(name, 0, 'warning', 'WACZ_PAGE_NOT_CAPTURED', `${notIndexed} page${notIndexed === 1 ? '' : 's'} with no capture record of that URL in the package`);
  }
}

/** One line of a pages file (line `i`, 0 the header): its page's url when it names one, else null. */
function checkPageLine(ctx: Ctx, name: string, line: string, i: number, offset: number): string | null {
  const raw = line.trim();
  if (raw === '' && i > 0) return null;
  const bad = (code: string, why: string) => ctx.report(name, offset, 'error', code, `line ${i + 1}: ${why}`);
  let j: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    j = parsed as Record<string, unknown>;
  } catch (err) {
    bad(i === 0 ? 'WACZ_PAGES_BAD_HEADER' : 'WACZ_PAGES_BAD_LINE', `not a JSON object (${(err as Error).message})`);
    return null;
  }
  if (i === 0) {
    if (j.format !== 'json-pages-1.0') bad('WACZ_PAGES_BAD_HEADER', `the header's "format" is ${JSON.stringify(j.format)}, not "json-pages-1.0"`);
    if (j.url !== undefined) bad('WACZ_PAGES_BAD_HEADER', 'the first line is a page, not the json-pages-1.0 header');
    return null;
  }
  if (typeof j.url !== 'string' || !URL.canParse(j.url)) {
    bad('WACZ_PAGES_BAD_LINE', `"url" ${JSON.stringify(j.url)} is not a URL`);
    return null;
  }
  if (typeof j.ts !== 'string' || !(Number.isFinite(Date.parse(j.ts)) || /^\d{14}$/.test(j.ts))) {
    bad('WACZ_PAGES_BAD_LINE', `"ts" ${JSON.stringify(j.ts)} is not a date (ISO 8601 or 14 digits)`);
  }
  return j.url;
}

/**
 * The lines of a stream split at LF, as `text.split('\n')` splits the whole text (the last one
 * after the last LF, empty or not, included), decoded as UTF-8. A line longer than
 * MAX_SMALL_ENTRY is cut there (its caller stops at it): memory stays bounded whatever the input.
 */
async function* entryLines(input: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of input) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      parts.push(chunk.subarray(start, nl));
      yield Buffer.concat(parts).toString('utf8');
      parts = [];
      held = 0;
      start = nl + 1;
    }
    if (held <= MAX_SMALL_ENTRY) {
      parts.push(chunk.subarray(start));
      held += chunk.length - start;
    }
    if (held > MAX_SMALL_ENTRY) {
      yield Buffer.concat(parts).toString('utf8');
      return;
    }
  }
  yield Buffer.concat(parts).toString('utf8');
}
