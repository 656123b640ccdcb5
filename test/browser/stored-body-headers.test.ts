import { describe, expect, it } from 'vitest';
import { headerList, storedBodyHeaders } from '../../core/browser/stored-body-headers.ts';

describe('storedBodyHeaders: the received head rewritten to describe the decoded body', () => {
  it('keeps Content-Encoding and Transfer-Encoding as x-orig-, sets Content-Length to the stored length', () => {
    expect(
      storedBodyHeaders(
        [
          ['Content-Type', 'application/json'],
          ['Content-Encoding', 'gzip'],
          ['Content-Length', '120'],
          ['Vary', 'Accept-Encoding'],
        ],
        463,
      ),
    ).toEqual([
      ['Content-Type', 'application/json'],
      ['x-orig-Content-Encoding', 'gzip'],
      ['Content-Length', '463'],
      ['Vary', 'Accept-Encoding'],
    ]);
  });

  it('adds a Content-Length where the response was chunked, and keeps one only', () => {
    expect(storedBodyHeaders([['Transfer-Encoding', 'chunked']], 9)).toEqual([
      ['x-orig-Transfer-Encoding', 'chunked'],
      ['Content-Length', '9'],
    ]);
    expect(storedBodyHeaders([['content-length', '5'], ['Content-Length', '5']], 5)).toEqual([['content-length', '5']]);
  });

  it('drops HTTP/2 pseudo-headers and keeps order, case and repeats of the rest', () => {
    expect(storedBodyHeaders([[':status', '200'], ['set-cookie', 'a=1'], ['Set-Cookie', 'b=2']], 0)).toEqual([
      ['set-cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['Content-Length', '0'],
    ]);
  });
});

describe('headerList: a CDP header map as fields', () => {
  it('splits the values Chromium joined with a newline back into repeated fields', () => {
    expect(headerList({ 'Set-Cookie': 'a=1\nb=2', Host: 'x' })).toEqual([
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['Host', 'x'],
    ]);
    expect(headerList(undefined)).toEqual([]);
  });
});
