// The replay policy as the bridge hands it out: our CSP replaces the archived one, the guard
// goes first into HTML (after the doctype), service worker scripts are refused.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import { applyReplayPolicy, injectGuard, REPLAY_CSP, REPLAY_GUARD_SCRIPT, replaySchemeAllowed } from '../../core/replay/replay-policy.ts';
import { archiveOf, removeTempDirs, tempDir } from './archive-fixture.ts';
import { html, writeWarc } from './warc-fixture.ts';

afterAll(removeTempDirs);

describe('replay policy', () => {
  it('puts the guard after a doctype and comments, before any script', () => {
    const out = injectGuard(Buffer.from('<!-- hi -->\n<!DOCTYPE html><html><script>1</script>')).toString();
    expect(out.startsWith(`<!-- hi -->\n<!DOCTYPE html>${REPLAY_GUARD_SCRIPT}<html>`)).toBe(true);
    expect(injectGuard(Buffer.from('<p>x')).toString()).toBe(`${REPLAY_GUARD_SCRIPT}<p>x`);
  });

  it('drops the archived CSP and service worker scope, adds ours, fixes Content-Length', () => {
    const body = Buffer.from('<!doctype html><p>hi');
    const r = applyReplayPolicy(
      [['Content-Type', 'text/html'], ['Content-Security-Policy', "connect-src ws:"], ['Service-Worker-Allowed', '/'], ['Content-Length', String(body.length)]],
      body,
    );
    expect(r.headers.filter(([k]) => /content-security-policy/i.test(k))).toEqual([['Content-Security-Policy', REPLAY_CSP]]);
    expect(r.headers.some(([k]) => k === 'Service-Worker-Allowed')).toBe(false);
    expect(Number(r.headers.find(([k]) => k === 'Content-Length')![1])).toBe(r.body.length);
    expect(r.body.toString()).toContain('data-trove-replay-guard');
    // Not HTML, or a HEAD: the body is left alone.
    expect(applyReplayPolicy([['Content-Type', 'text/css']], Buffer.from('p{}')).body.toString()).toBe('p{}');
    expect(applyReplayPolicy([['Content-Type', 'text/html']], body, { method: 'HEAD' }).body).toBe(body);
  });

  it('the CSP allows no socket scheme and no plugins', () => {
    expect(REPLAY_CSP).not.toMatch(/ws:|wss:|\*/);
    expect(REPLAY_CSP).toContain("object-src 'none'");
    for (const url of ['ws://127.0.0.1/', 'wss://x/', 'ftp://x/', 'file:///etc/passwd', 'chrome://settings', 'not a url']) expect(replaySchemeAllowed(url), url).toBe(false);
    for (const url of ['http://x/', 'https://x/', 'data:,x', 'blob:http://x/1', 'about:blank']) expect(replaySchemeAllowed(url), url).toBe(true);
  });

  it('replayResponse refuses a service worker script even when it is archived', async () => {
    const file = path.join(tempDir(), 'sw.warc.gz');
    await writeWarc(file, [
      { url: 'http://sw.example/', date: '2024-01-01T00:00:00Z', headers: html(), body: '<!doctype html><title>t</title>' },
      { url: 'http://sw.example/sw.js', date: '2024-01-01T00:00:01Z', headers: [['Content-Type', 'text/javascript']], body: 'self.onfetch = null;' },
    ]);
    const { archive } = await archiveOf([file]);
    const sw = await replayResponse(archive, { url: 'http://sw.example/sw.js', headers: [['Service-Worker', 'script']] });
    expect(sw.status).toBe(403);
    const plain = await replayResponse(archive, { url: 'http://sw.example/sw.js' });
    expect(plain.status).toBe(200);
    const page = await replayResponse(archive, { url: 'http://sw.example/' });
    expect(page.body.toString()).toMatch(/^<!doctype html><script data-trove-replay-guard>/);
    expect(page.headers).toContainEqual(['Content-Security-Policy', REPLAY_CSP]);
  });
});
