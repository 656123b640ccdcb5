/**
 * The long archive commands' progress off a terminal (core/cli/operation-progress.ts): a plain
 * line every `--progress-every` seconds with the share done, the amount, an ETA at the rate so
 * far (restarted at each phase), and nothing before the first interval, on an injected clock.
 */
import { describe, expect, it } from 'vitest';
import { etaSeconds, OperationProgress } from '../../core/cli/operation-progress.ts';

describe('OperationProgress off a terminal', () => {
  it('prints a line each interval with the ETA of the phase at its rate so far', () => {
    let now = 0;
    const lines: string[] = [];
    const p = new OperationProgress('wacz', { stderr: { write: (s: string) => lines.push(s), isTTY: false } }, { enabled: true, every: 5, now: () => now });
    now = 1000;
    p.update({ done: 1 << 20, total: 10 << 20, bytes: true, note: 'warcs' }, 'warcs');
    expect(lines).toEqual([]);
    now = 6000;
    p.update({ done: 5 << 20, total: 10 << 20, bytes: true, note: 'warcs' }, 'warcs');
    expect(lines).toHaveLength(1);
    // 5 MiB in the 5 s since the phase began: 5 MiB left takes 5 s more.
    expect(lines[0]).toBe('trove wacz: 50% 5.0 MiB of 10 MiB, ETA 0:05, 0:06 elapsed | warcs\n');
    now = 12000;
    p.update({ done: 100, total: 400, bytes: false, note: 'index' }, 'index');
    expect(lines[1]).toMatch(/^trove wacz: 25% 100 of 400, ETA \?, 0:12 elapsed \| index\n$/);
  });

  it('prints nothing with --no-progress, and knows no ETA before any work is done', () => {
    const lines: string[] = [];
    const p = new OperationProgress('import', { stderr: { write: (s: string) => lines.push(s) } }, { enabled: false, every: 0 });
    p.update({ done: 1, total: 2, bytes: false, note: '' });
    expect(lines).toEqual([]);
    expect(etaSeconds(0, 100, 1000)).toBeNull();
    expect(etaSeconds(25, 100, 1000)).toBe(3);
    expect(etaSeconds(100, 100, 1000)).toBe(0);
  });
});
