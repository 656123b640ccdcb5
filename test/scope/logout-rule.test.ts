/**
 * The log-out guard's words: the spellings a site uses for the URL that ends a session are
 * caught in the path and the query, and words that only contain them are not.
 */
import { describe, expect, it } from 'vitest';
import { logoutMatch } from '../../core/scope/logout-rule.ts';

describe('logoutMatch', () => {
  it('finds the log-out spellings in the path and the query', () => {
    for (const u of ['https://x.org/logout', 'https://x.org/user/log-out/', 'https://x.org/account/sign-out', 'https://x.org/SignOut.aspx', 'https://x.org/doLogout', 'https://x.org/logout.php', 'https://x.org/a?action=logoff', 'https://x.org/a?do=log%20out', 'https://x.org/log_out']) {
      expect(logoutMatch(new URL(u)), u).not.toBeNull();
    }
    expect(logoutMatch(new URL('https://x.org/a?action=LogOff'))).toEqual({ part: 'query', word: 'LogOff' });
  });

  it('does not take a longer word for a log-out', () => {
    for (const u of ['https://x.org/catalog-outline.html', 'https://x.org/dialog-output', 'https://x.org/changelog-outdated', 'https://x.org/blog/', 'https://x.org/signup', 'https://x.org/login?next=/home']) {
      expect(logoutMatch(new URL(u)), u).toBeNull();
    }
  });
});
