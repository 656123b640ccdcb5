/**
 * The checks py-wacz's `wacz validate` makes (webrecorder/py-wacz wacz/validate.py), written again
 * in Python with the standard library only, since py-wacz and frictionless are not installable
 * here (no PyPI). Python's zipfile reads the package; nothing of Trove's is used:
 * - datapackage.json present with `wacz_version`, `profile: "data-package"`, `created` in the
 *   `%Y-%m-%dT%H:%M:%SZ` form validate parses;
 * - Frictionless resource rules: every `name` matches `^([-a-z0-9._/])+$` and is unique; paths
 *   are relative, without `..`;
 * - required contents: a WARC in archive/, indexes/index.cdx.gz and index.idx, pages/pages.jsonl;
 * - every file but the two datapackage files is listed, by its last two path components
 *   (check_file_paths), with the right sha256 and size (check_file_hashes);
 * - archive/* and indexes/*.cdx.gz STORED (check_compression, as WACZ 1.1.1 "Zip Compression");
 * - datapackage-digest.json's hash is datapackage.json's; a signature's `created` equals it;
 * - pages.jsonl: a header with `format` and `id`, then lines with `url` and an RFC 3339 `ts`;
 * - the ZipNum index: idx `!meta` line, blocks inside index.cdx.gz, every CDXJ line naming a
 *   WARC of the package with an offset and length inside it.
 * It is stricter than validate where validate only looks (it asks for index.cdx.gz + index.idx
 * and a digest file, as Trove always writes them); the corpus's valid_signed_example_1.wacz
 * (py-wacz 0.4) passes it.
 */
import { spawnSync } from 'node:child_process';

const SCRIPT = String.raw`
import datetime, gzip, hashlib, json, re, sys, zipfile
problems = []
z = zipfile.ZipFile(sys.argv[1])
infos = {i.filename: i for i in z.infolist()}
def need(cond, msg):
    if not cond: problems.append(msg)
dp_bytes = z.read('datapackage.json')
dp = json.loads(dp_bytes)
need('wacz_version' in dp, 'no wacz_version')
need(dp.get('profile') == 'data-package', 'profile is not data-package')
try: datetime.datetime.strptime(dp.get('created', ''), '%Y-%m-%dT%H:%M:%SZ')
except ValueError: problems.append('created not %Y-%m-%dT%H:%M:%SZ: ' + str(dp.get('created')))
names = [r.get('name', '') for r in dp['resources']]
for n in names: need(re.fullmatch(r'[-a-z0-9._/]+', n), 'bad resource name ' + n)
need(len(set(names)) == len(names), 'duplicate resource names')
paths = {r['path']: r for r in dp['resources']}
for p in paths: need(not p.startswith('/') and '..' not in p.split('/'), 'bad path ' + p)
need(any(re.fullmatch(r'archive/[^/]+\.warc(\.gz)?', n) for n in infos), 'no WARC in archive/')
for req in ('indexes/index.cdx.gz', 'indexes/index.idx', 'pages/pages.jsonl'): need(req in infos, 'missing ' + req)
for name, info in infos.items():
    if name in ('datapackage.json', 'datapackage-digest.json'): continue
    need('/'.join(name.split('/')[-2:]) in paths, 'not listed: ' + name)
    r = paths.get(name)
    if r:
        data = z.read(name)
        need(r.get('hash') == 'sha256:' + hashlib.sha256(data).hexdigest(), 'hash of ' + name)
        need(r.get('bytes') == len(data), 'size of ' + name)
    if name.startswith('archive/') or name.endswith('.cdx.gz'):
        need(info.compress_type == zipfile.ZIP_STORED, name + ' not STORED')
need('datapackage-digest.json' in infos, 'no datapackage-digest.json (Trove always writes one)')
if 'datapackage-digest.json' in infos:
    dg = json.loads(z.read('datapackage-digest.json'))
    need(dg.get('path') == 'datapackage.json', 'digest path')
    need(dg.get('hash') == 'sha256:' + hashlib.sha256(dp_bytes).hexdigest(), 'digest hash')
    if 'signedData' in dg: need(dg['signedData'].get('created') == dp.get('created'), 'signed created != created')
lines = z.read('pages/pages.jsonl').decode('utf-8').splitlines()
head = json.loads(lines[0])
need('format' in head and 'id' in head, 'pages header')
rfc3339 = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$')
for l in lines[1:]:
    p = json.loads(l)
    need('url' in p and rfc3339.match(p.get('ts', '')), 'page line ' + l[:80])
idx = z.read('indexes/index.idx').decode('utf-8').splitlines()
need(idx[0].startswith('!meta 0 '), 'idx !meta')
cdx = z.read('indexes/index.cdx.gz')
warcs = {n[len('archive/'):]: infos[n].file_size for n in infos if n.startswith('archive/')}
count = 0
for l in idx[1:]:
    j = json.loads(l[l.index(' {') + 1:])
    need(j['offset'] + j['length'] <= len(cdx), 'idx block outside index.cdx.gz')
    for c in gzip.decompress(cdx[j['offset']:j['offset'] + j['length']]).decode('utf-8').splitlines():
        cj = json.loads(c.split(' ', 2)[2])
        size = warcs.get(cj.get('filename'))
        need(size is not None and int(cj['offset']) + int(cj['length']) <= size, 'cdx line outside its WARC: ' + c[:100])
        count += 1
print(json.dumps({'problems': problems, 'captures': count}))
`;

/** Problems found (empty when the package passes), and the number of CDXJ lines read. */
export function pyWaczChecks(file: string): { problems: string[]; captures: number } {
  const r = spawnSync('python3', ['-c', SCRIPT, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`python3 is needed to check WACZ files: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`python3 WACZ checks failed on ${file}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as { problems: string[]; captures: number };
}
