// The page template escapes every interpolation unless it is already SafeHtml,
// so no page can forget to (src/web/html.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OAuthError } from '../../src/oauth/errors.ts';
import { renderConsentPage } from '../../src/web/consent-page.ts';
import { renderErrorPage } from '../../src/web/error-page.ts';
import { SafeHtml, escapeHtml, html } from '../../src/web/html.ts';
import { renderNativeCodePage } from '../../src/web/native-code-page.ts';
import { renderSignInPage } from '../../src/web/sign-in-page.ts';

const HOSTILE = `<script>alert("x")</script>&'`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;';

describe('html tagged template', () => {
  it('escapes <, >, &, double and single quotes in every interpolation', () => {
    assert.equal(html`<p title="${HOSTILE}">${HOSTILE}</p>`.value, `<p title="${ESCAPED}">${ESCAPED}</p>`);
  });

  it('escapes each of several interpolations, not only the first', () => {
    assert.equal(html`${'<a>'}${'<b>'} and ${'"c"'}`.value, '&lt;a&gt;&lt;b&gt; and &quot;c&quot;');
  });

  it('escapes an ampersand that already looks like an entity (text is text)', () => {
    assert.equal(html`${'&amp; &lt;'}`.value, '&amp;amp; &amp;lt;');
  });

  it('does not escape SafeHtml again, so templates nest', () => {
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p>${inner}</p>`.value, '<p><b>&lt;i&gt;</b></p>');
    assert.equal(html`${new SafeHtml('<br>')}`.value, '<br>');
  });

  it('joins arrays, escaping strings and keeping SafeHtml items', () => {
    const items = ['<one>', html`<li>${'&two'}</li>`, ['"three"']];
    assert.equal(html`<ul>${items}</ul>`.value, '<ul>&lt;one&gt;<li>&amp;two</li>&quot;three&quot;</ul>');
  });

  it('renders nothing for null, undefined and false, and numbers and true as text', () => {
    assert.equal(html`[${null}][${undefined}][${false}][${0}][${42}][${true}]`.value, '[][][][0][42][true]');
  });

  it('returns SafeHtml whose string form is the markup', () => {
    const result = html`<p>${'x'}</p>`;
    assert.ok(result instanceof SafeHtml);
    assert.equal(String(result), '<p>x</p>');
  });

  it('escapeHtml leaves ordinary text, including non-ASCII, untouched', () => {
    assert.equal(escapeHtml('Dora Développeur / 50% · ok'), 'Dora Développeur / 50% · ok');
  });
});

describe('pages escape what users and developers control', () => {
  it('the consent page escapes the application name, developer name, host and carried parameters', () => {
    const page = renderConsentPage({
      applicationName: HOSTILE, clientId: 'folio-client', registration: 'person', ownerName: HOSTILE, redirectHost: HOSTILE, loopbackRedirect: false, scopes: ['read', HOSTILE], reach: HOSTILE,
      params: { state: `"><script>alert(1)</script>`, [`x"><img src=x onerror=alert(1)>`]: 'v' },
      csrfToken: 'csrf"token', user: { name: HOSTILE, email: HOSTILE },
    });
    assert.ok(!page.includes('<script>'), 'no raw script tag');
    assert.ok(!page.includes('<img'), 'no injected element from a parameter name');
    assert.ok(page.includes(`value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`));
    assert.ok(page.includes('value="csrf&quot;token"'));
    assert.ok(page.includes(ESCAPED));
  });

  it('the sign-in page escapes the return address, email, error and application name', () => {
    const page = renderSignInPage({ csrfToken: 't', returnTo: `/x"><script>1</script>`, email: HOSTILE, error: HOSTILE, applicationName: HOSTILE });
    assert.ok(!page.includes('<script>'));
    assert.ok(page.includes('value="/x&quot;&gt;&lt;script&gt;1&lt;/script&gt;"'));
  });

  it('the error page escapes the description', () => {
    const page = renderErrorPage(new OAuthError('invalid_request', HOSTILE));
    assert.ok(!page.includes('<script>'));
    // The description holds no double quote (RFC 6749 §5.2): it became a single one.
    assert.ok(page.includes('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#39;'));
  });

  it('the out-of-band page escapes the code', () => {
    const page = renderNativeCodePage(`"><script>alert(1)</script>`);
    assert.ok(!page.includes('<script>'));
    assert.ok(page.includes('>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>'));
  });

  it("the error page escapes the application's name, its destination and the link back", () => {
    const page = renderErrorPage(new OAuthError('invalid_scope', 'bad'), {
      applicationName: HOSTILE, destination: HOSTILE, location: 'https://client.example/cb?error=invalid_scope&state="><script>',
    });
    assert.ok(!page.includes('<script>'));
    assert.ok(page.includes('href="https://client.example/cb?error=invalid_scope&amp;state=&quot;&gt;&lt;script&gt;"'));
  });
});
