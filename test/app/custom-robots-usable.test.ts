// Custom robots.txt rules with no usable line (`User-agent *` without its colon) are not "ready":
// parsing stays total (RFC 9309: such a file allows everything), but the New crawl form's check,
// and so crawl.start, name the problem at the custom robots field instead of crawling allow-all.
import { describe, expect, it } from 'vitest';
import { checkCrawl } from '../../core/app/crawl-checks.ts';
import { noUsableLine, parseRobots } from '../../core/robots/parse-robots.ts';

const seedsText = 'http://127.0.0.1:8080/\n';

describe('custom robots.txt with no usable line', () => {
  it('the parse says so, and names the lines it ignored', () => {
    const robots = parseRobots('User-agent *\nDisallow /private\n');
    expect(robots.usableLines).toBe(0);
    expect(robots.isAllowed('Trove/1.0', '/private/x')).toBe(true); // still total: allow-all
    expect(noUsableLine(robots)).toMatch(/^no usable line \(line 1: no colon after the field name; line 2: no colon/);
    expect(noUsableLine(parseRobots('User-agent: *\nDisallow: /private\n'))).toBeNull();
    expect(noUsableLine(parseRobots('Sitemap: http://127.0.0.1/s.xml\n'))).toBeNull();
    expect(noUsableLine(parseRobots('# only a comment\n\n'))).toBeNull();
    expect(noUsableLine(parseRobots('Disallow: /\n'))).toMatch(/line 1: a rule before any User-agent line/);
  });

  it('the crawl check is not valid and puts the message at the customRobots field', () => {
    const bad = checkCrawl({ seedsText, settings: { robots: 'custom' }, customRobots: 'User-agent *\nDisallow: /private\n' });
    expect(bad.valid).toBe(false);
    expect(bad.issues.find((i) => i.field === 'customRobots')?.message).toMatch(/no usable line/);
    const good = checkCrawl({ seedsText, settings: { robots: 'custom' }, customRobots: 'User-agent: *\nDisallow: /private\n' });
    expect(good.issues.filter((i) => i.field === 'customRobots')).toEqual([]);
    // Only the custom policy uses the text as the crawl's robots.txt.
    expect(checkCrawl({ seedsText, settings: { robots: 'obey' }, customRobots: 'User-agent *' }).issues.filter((i) => i.field === 'customRobots')).toEqual([]);
  });
});
