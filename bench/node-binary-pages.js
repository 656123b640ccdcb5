/**
 * Which parts of the node binary a process has resident (issue 20): the binary is ~60% of a
 * crawl's file-backed RSS and `smaps` only says "node". This reads the process's own page table
 * (/proc/self/pagemap, bit 63: the page is mapped and present) over the binary's mappings and
 * gives each resident page to the symbol that covers it (`nm -S -C` of the binary: Node's
 * official Linux build is not stripped and not position-independent, so symbol addresses are the
 * mapped addresses), grouped by library or V8 component: ICU's data (icudt*_dat), ICU's code,
 * V8's compilers, the embedded builtins, OpenSSL, libuv, Node itself… Plain JavaScript: loaded by
 * bench/rss-at-exit.js before any TypeScript.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const PAGE = 4096;

/** Sorted [start, end, group] of the binary's sized symbols. */
function symbols(binary) {
  const out = execFileSync('nm', ['-S', '-C', '--defined-only', binary], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const syms = [];
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) \S (.*)$/.exec(line);
    if (!m) continue;
    const size = parseInt(m[2], 16);
    if (size === 0) continue;
    const start = parseInt(m[1], 16);
    syms.push([start, start + size, groupOf(m[3])]);
  }
  return syms.sort((a, b) => a[0] - b[0]);
}

const C_PREFIXES = [
  [/^icudt\d+_dat$/, 'ICU data'],
  [/^icu_\d+::|^u(text|loc|cnv|enum|hash|trie|res|data|case|str|set|prop|norm|bidi|script|char|list|mutex|init|cal|dat|dtitv|fmt|num|plurrules|ucol|coll)\w*_\d+$|^_?u[a-z]+_\w+_\d+$/, 'ICU code'],
  [/^v8_Default_embedded_blob|^v8::internal::Builtins_|^Builtins_/, 'V8 embedded builtins'],
  [/^v8::internal::compiler::|^v8::internal::turboshaft::/, 'V8 TurboFan/Turboshaft'],
  [/^v8::internal::maglev::/, 'V8 Maglev'],
  [/^v8::internal::wasm::/, 'V8 WebAssembly'],
  [/^v8::internal::(interpreter|baseline)::/, 'V8 interpreter/Sparkplug'],
  [/^v8::internal::(Parser|Scanner|PreParser|ParserBase|AstNode|Ast|Scope|DeclarationScope)|^v8::internal::\w*(Parser|Scanner|Ast)/, 'V8 parser'],
  [/^v8::internal::(Heap|MarkCompact|Scavenger|MinorMarkSweep|ConcurrentMarking|Sweeper|MemoryAllocator|PagedSpace|NewSpace|MarkingVisitor|IncrementalMarking)|^(heap|cppgc)::|^v8::internal::\w*(Marking|Sweep|Evacuat)/, 'V8 heap/GC'],
  [/^v8::internal::(RegExp|regexp)|^v8::internal::\w*RegExp/, 'V8 regexp'],
  [/^v8::|^v8_inspector::/, 'V8 other'],
  [/^node::|^napi_|^node_/, 'Node'],
  [/^uv_|^uv__/, 'libuv'],
  [/^(OPENSSL|ossl|EVP_|SSL_|ssl|tls|BN_|bn_|ASN1|X509|CRYPTO|RSA_|EC_|ec_|sha|SHA|aes|AES|ERR_|OBJ_|PEM_|BIO_|ChaCha|gcm|x25519|X25519|ecp_|OSSL|PKCS|DH_|DSA_|evp_|rsa_|dsa_|dh_|x509|asn1|ctr|poly1305|RAND|rand_|kdf|MD5|md5|HMAC|CMAC|KDF|cms|CMS|OCSP|ocsp|ct_|CT_|conf|CONF|ENGINE|engine|provider|PROV|prov|ossl_|blake2|keccak|SM[234]|sm[234]|whirlpool|camellia|aria|des_|DES_|bf_|BF_|cast_|RC[245]|seed|ripemd|mdc2|siphash|ed25519|ed448|x448|curve)/, 'OpenSSL'],
  [/^(deflate|inflate|crc32|adler32|zlib|gz|_tr_|compress|uncompress|zError|zcalloc|zcfree|Cr_z_|cpu_check|zng_|zlibng)/i, 'zlib'],
  [/^Brotli|^brotli|^Kbrotli/, 'Brotli'],
  [/^zstd|^ZSTD|^HUF_|^FSE_|^HIST_|^ZDICT/i, 'zstd'],
  [/^nghttp2|^nghttp3|^ngtcp2/, 'nghttp2/3'],
  [/^llhttp|^llparse/, 'llhttp'],
  [/^ares_|^ares__/, 'c-ares'],
  [/^simdutf::|^simdjson::/, 'simdutf/simdjson'],
  [/^ada::/, 'ada (URL)'],
  [/^sqlite3|^sqlite/, 'SQLite (node:sqlite)'],
  [/^std::|^__gnu_cxx::|^operator|^__cxa|^__cxx/, 'C++ runtime'],
];

function groupOf(name) {
  for (const [re, g] of C_PREFIXES) if (re.test(name)) return g;
  return 'other symbols';
}

/** [start, end, name] of the binary's allocated sections (readelf), for bytes no symbol covers. */
function sections(binary) {
  const out = execFileSync('readelf', ['-SW', binary], { encoding: 'utf8' });
  const secs = [];
  for (const line of out.split('\n')) {
    const m = /\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(line);
    if (m && parseInt(m[2], 16) > 0) secs.push([parseInt(m[2], 16), parseInt(m[2], 16) + parseInt(m[3], 16), m[1]]);
  }
  return secs;
}

let cache = null;
let sectionCache = null;

/**
 * MiB resident per group for this process's node binary mappings, highest first, and the total;
 * bytes no sized symbol covers are counted by ELF section (`no symbol, .eh_frame`…).
 */
export function nodeBinaryResidency() {
  const binary = fs.realpathSync(process.execPath);
  cache ??= symbols(binary);
  sectionCache ??= sections(binary);
  const syms = cache;
  const noSymbol = (addr) => `no symbol, ${sectionCache.find(([a, b]) => addr >= a && addr < b)?.[2] ?? 'headers'}`;
  const maps = fs
    .readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .map((l) => /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s+(.*)$/.exec(l))
    .filter((m) => m && m[3] === binary)
    .map((m) => [parseInt(m[1], 16), parseInt(m[2], 16)]);
  const fd = fs.openSync('/proc/self/pagemap', 'r');
  const bytes = new Map();
  let total = 0;
  try {
    for (const [start, end] of maps) {
      const n = (end - start) / PAGE;
      const buf = Buffer.alloc(n * 8);
      fs.readSync(fd, buf, 0, buf.length, (start / PAGE) * 8);
      let s = 0;
      for (let i = 0; i < n; i++) {
        if ((buf.readUInt32LE(i * 8 + 4) & 0x80000000) === 0) continue;
        const lo = start + i * PAGE;
        const hi = lo + PAGE;
        total += PAGE;
        // The symbols overlapping this page get their share of it; the rest is "no symbol".
        while (s < syms.length && syms[s][1] <= lo) s++;
        let covered = 0;
        for (let j = s; j < syms.length && syms[j][0] < hi; j++) {
          const a = Math.max(lo, syms[j][0]);
          const b = Math.min(hi, syms[j][1]);
          if (b <= a) continue;
          covered += b - a;
          bytes.set(syms[j][2], (bytes.get(syms[j][2]) ?? 0) + (b - a));
        }
        // Overlapping symbols (aliases) can count a byte twice: scaled back to the page.
        if (covered > PAGE) {
          for (let j = s; j < syms.length && syms[j][0] < hi; j++) {
            const a = Math.max(lo, syms[j][0]);
            const b = Math.min(hi, syms[j][1]);
            if (b > a) bytes.set(syms[j][2], bytes.get(syms[j][2]) - (b - a) + ((b - a) * PAGE) / covered);
          }
        } else if (covered < PAGE) bytes.set(noSymbol(lo), (bytes.get(noSymbol(lo)) ?? 0) + PAGE - covered);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  const mib = (n) => Math.round((n / 1048576) * 10) / 10;
  return { totalMib: mib(total), groups: Object.fromEntries([...bytes].sort((a, b) => b[1] - a[1]).map(([g, b]) => [g, mib(b)])) };
}
