import { describe, expect, it } from 'vitest';
import { detectLoginWall } from '../../services/crawler/fetchers/login-detection.js';

const LOGIN_FORM = '<html><head><title>Sign In - Public Surplus</title></head><body><form><input name="u"><input type="password" name="p"></form></body></html>';

describe('login wall detection', () => {
  it('recognises a 401 answer, whatever its body', () => {
    expect(detectLoginWall({ status: 401, url: 'https://www.publicsurplus.com/sms/list/current', body: LOGIN_FORM }, 'https://www.publicsurplus.com/sms/list/current')).toEqual({
      reason: 'HTTP 401: the page asks for a login (/sms/list/current)',
    });
    expect(detectLoginWall({ status: 401, url: 'https://x.example/a', body: '' }, 'https://x.example/a')).not.toBeNull();
  });

  it('recognises a redirect to a login path, but not a login path the crawler asked for itself', () => {
    for (const path of ['/login', '/Account/Login', '/users/sign_in', '/sms/signin.jsp', '/auth/login/']) {
      expect(detectLoginWall({ status: 200, url: `https://x.example${path}?next=%2Flots`, body: '<p>hi</p>' }, 'https://x.example/lots'), path).toMatchObject({ reason: expect.stringMatching(/redirected to a login page/) });
    }
    expect(detectLoginWall({ status: 200, url: 'https://x.example/login', body: '<p>hi</p>' }, 'https://x.example/login')).toBeNull();
    // A lot whose title merely contains the word is not a login page.
    expect(detectLoginWall({ status: 200, url: 'https://x.example/lot/blogin-trailer', body: '<p>lot</p>' }, 'https://x.example/lot/1')).toBeNull();
  });

  it('recognises a login form served instead of the page (200), not a page with a sign-in box in its header', () => {
    expect(detectLoginWall({ status: 200, url: 'https://x.example/lots', body: LOGIN_FORM }, 'https://x.example/lots')).toMatchObject({ reason: 'a login form instead of the page (HTTP 200)' });
    const header = '<html><head><title>2016 CAT 320FL Excavator | Auctions</title></head><body><form id="hdr"><input type="password"></form><h1>2016 CAT 320FL</h1></body></html>';
    expect(detectLoginWall({ status: 200, url: 'https://x.example/lots/1', body: header }, 'https://x.example/lots/1')).toBeNull();
  });
});
