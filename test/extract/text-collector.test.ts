import { describe, expect, it } from 'vitest';
import { TextCollector } from '../../core/extract/text-collector.ts';

/**
 * The collector as it was before batching (every chunk collapsed with a regex as it came): the
 * reference the faster one must match exactly, cap included.
 */
class ReferenceCollector {
  private readonly parts: string[] = [];
  private length = 0;
  private pendingSpace = false;
  full = false;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  space(): void {
    if (this.length > 0) this.pendingSpace = true;
  }
  add(chars: string): void {
    if (this.full || chars === '') return;
    let s = chars.replace(/\s+/g, ' ');
    if (s.startsWith(' ')) {
      this.space();
      s = s.slice(1);
    }
    const trailing = s.endsWith(' ');
    if (trailing) s = s.slice(0, -1);
    if (s !== '') {
      if (this.pendingSpace) this.push(' ');
      this.pendingSpace = false;
      this.push(s);
    }
    if (trailing) this.space();
  }
  toString(): string {
    return this.parts.join('');
  }
  private push(s: string): void {
    const room = this.max - this.length;
    if (s.length >= room) {
      let cut = s.slice(0, room);
      const last = cut.charCodeAt(cut.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
      this.parts.push(cut);
      this.length += cut.length;
      this.full = true;
      return;
    }
    this.parts.push(s);
    this.length += s.length;
  }
}

describe('TextCollector', () => {
  it('collapses whitespace inside chunks and between them, none at the ends', () => {
    const t = new TextCollector(1000);
    t.space();
    t.add('\u00a0Hello');
    t.add('\u3000');
    t.space();
    t.add('wor');
    t.add('ld\u00a0');
    t.add('x\vy');
    t.space();
    expect(t.toString()).toBe('Hello world x y');
  });

  it('matches the per-chunk reference exactly, cap and surrogate pairs included', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = ['a', 'word', 'xyz', '\u00a0', '\u3000', '\v', ' ', '  ', '\t', '\n', '\r\n', '\f', '\u1680', '\u2009', '\u205f', '\ufeff', '😀', 'é', '\u2028', 'z\u00a0', '\u00a0z', ' z', 'z ', ''];
    for (let round = 0; round < 3000; round++) {
      const max = 1 + rnd(40);
      const a = new TextCollector(max);
      const b = new ReferenceCollector(max);
      const steps = rnd(40);
      for (let i = 0; i < steps; i++) {
        if (rnd(3) === 0) {
          a.space();
          b.space();
        } else {
          let chunk = '';
          for (let k = rnd(4); k >= 0; k--) chunk += atoms[rnd(atoms.length)];
          a.add(chunk);
          b.add(chunk);
        }
        expect(a.full).toBe(b.full);
      }
      expect(a.toString()).toBe(b.toString());
    }
  });

  it('collapses every character JavaScript counts as whitespace, alone and in runs, as the reference does', () => {
    // Every BMP code unit /\s/ matches (Unicode White_Space and the BOM), found rather than listed,
    // and look-alikes that are not whitespace.
    const spaces: string[] = [];
    for (let c = 0; c <= 0xffff; c++) if (/\s/.test(String.fromCharCode(c))) spaces.push(String.fromCharCode(c));
    expect(spaces).toHaveLength(25);
    const others = ['a', 'xy', '\u200b', '\u180e', '\u00ad', '\u0085', '😀', '\u2060'];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const inputs: string[] = [];
    for (const a of spaces) {
      inputs.push(`x${a}y`, `${a}`, `x${a}`, `${a}y`);
      for (const b of spaces) inputs.push(`x${a}${b}y`);
    }
    for (let i = 0; i < 20_000; i++) {
      let s = '';
      for (let k = rnd(12); k >= 0; k--) s += rnd(2) === 0 ? spaces[rnd(spaces.length)] : others[rnd(others.length)];
      inputs.push(s);
    }
    for (const input of inputs) {
      const a = new TextCollector(1000);
      const b = new ReferenceCollector(1000);
      a.space();
      b.space();
      a.add('w');
      b.add('w');
      for (const piece of input.split(/(?=y)/)) {
        a.add(piece);
        b.add(piece);
        if (piece.length % 3 === 0) {
          a.space();
          a.space();
          b.space();
        }
      }
      if (a.toString() !== b.toString()) expect(JSON.stringify(a.toString())).toBe(JSON.stringify(b.toString()));
    }
  });

  it('holds long text in batches and stops exactly at the cap', () => {
    const a = new TextCollector(100_000);
    const b = new ReferenceCollector(100_000);
    for (let i = 0; i < 50_000; i++) {
      const chunk = i % 97 === 0 ? `w${i}\u00a0` : `w${i}`;
      a.add(chunk);
      b.add(chunk);
      if (i % 3 === 0) {
        a.space();
        b.space();
      }
    }
    expect(a.full).toBe(true);
    expect(a.toString()).toBe(b.toString());
    expect(a.toString()).toHaveLength(100_000);
  });
});
