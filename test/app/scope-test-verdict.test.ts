// The New crawl form's scope tester: the rule its verdict names and the rule its list highlights
// are the same one. ("REJECT by outside-prefix" while the list highlighted reject-all.)
import { describe, expect, it } from 'vitest';
import { scopeTest } from '../../core/app/crawl-checks.ts';

const base = { seedsText: 'http://127.0.0.1:8080/docs/\n', settings: { scope: 'prefix' as const } };

describe('scope tester verdict', () => {
  it('a URL no rule accepted: the verdict says why, and no rule of the list is marked as deciding', () => {
    const r = scopeTest({ ...base, url: 'http://127.0.0.1:8080/other/' });
    expect(r.decision.decision).toBe('REJECT');
    expect(r.decision.trace.map((t) => t.rule)).not.toContain(r.decision.rule);
    expect(r.deciding).toBe(-1);
  });

  it('a URL a rule accepted or rejected: the list marks that very rule', () => {
    for (const url of ['http://127.0.0.1:8080/docs/a.html', 'http://127.0.0.1:8080/docs/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a.html']) {
      const r = scopeTest({ ...base, url });
      expect(r.deciding).toBeGreaterThanOrEqual(0);
      expect(r.decision.trace[r.deciding]!.rule).toBe(r.decision.rule);
    }
  });
});
